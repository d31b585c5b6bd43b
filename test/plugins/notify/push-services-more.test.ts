// pushbullet, opsgenie, pagerduty, bark, ifttt, join, twilio and notifiarr against loopback stand-ins for
// their APIs. Bark names its server in the URL and reaches a loopback one with shoutrrr's `scheme=http`;
// the others have fixed hosts (or HTTPS only), so their factory's test-only base URL is set in code.
import t from 'tap';
import { BUILTIN_SERVICES } from '../../../plugins/notify/services/index.js';
import { createIftttService } from '../../../plugins/notify/services/ifttt.js';
import { createJoinService } from '../../../plugins/notify/services/join.js';
import { createNotifiarrService } from '../../../plugins/notify/services/notifiarr.js';
import { createOpsGenieService } from '../../../plugins/notify/services/opsgenie.js';
import { createPagerDutyService } from '../../../plugins/notify/services/pagerduty.js';
import { createPushbulletService } from '../../../plugins/notify/services/pushbullet.js';
import { createTwilioService } from '../../../plugins/notify/services/twilio.js';
import type { NotificationService } from '../../../plugins/notify/service.js';
import { parseNotificationUrls } from '../../../plugins/notify/urls.js';
import { CaptureServer, never, rejectsWithout } from '../../helpers/capture-server.js';

const server = await new CaptureServer().start();
t.teardown(() => server.close());
t.beforeEach(() => {
  server.requests.length = 0;
  server.answer = () => ({ status: 200, body: {} });
});
const sender = (url: string, services: readonly NotificationService[] = BUILTIN_SERVICES) => parseNotificationUrls([url], services)[0]!;

const PB_TOKEN = 'o.AbCdEfGhIjKlMnOpQrStUvWxYz0123456'.slice(0, 34);

t.test('pushbullet: one note per target with the Access-Token header', async (t) => {
  const svc = [createPushbulletService({ baseUrl: server.origin })];
  server.answer = (r) => ({ body: { type: 'note', active: true, body: (r.json as { body: string }).body } });
  const s = sender(`pushbullet://${PB_TOKEN}/alice@mail.example/#news/ujpah72o0sjAoRtnM0jc`, svc);
  await s.send({ title: 'Updates', body: 'one updated' }, never());
  t.equal(server.requests.length, 3);
  for (const r of server.requests) {
    t.equal(r.path, '/v2/pushes');
    t.equal(r.headers['access-token'], PB_TOKEN);
  }
  const common = { type: 'note', title: 'Updates', body: 'one updated' };
  t.same(server.requests.map((r) => r.json), [
    { ...common, email: 'alice@mail.example', channel_tag: '', device_iden: '' },
    { ...common, email: '', channel_tag: 'news', device_iden: '' },
    { ...common, email: '', channel_tag: '', device_iden: 'ujpah72o0sjAoRtnM0jc' },
  ]);
  t.notMatch(s.redacted, new RegExp(PB_TOKEN));
  await sender(`pushbullet://${PB_TOKEN}`, svc).send({ title: '', body: 'b' }, never());
  t.same(server.requests[3]!.json, { type: 'note', title: 'Shoutrrr notification', body: 'b', email: '', channel_tag: '', device_iden: '' }, 'no target: every device; the default title');
  server.answer = () => ({ status: 401, body: { error: { message: `token ${PB_TOKEN} invalid` } } });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), [PB_TOKEN]);
});

t.test('opsgenie: POST /v2/alerts with GenieKey auth, the title as message, lists and entities', async (t) => {
  const svc = [createOpsGenieService({ baseUrl: server.origin })];
  const s = sender(
    'opsgenie://api.eu.opsgenie.com/0p5Key-eb243592?alias=tw&description=From+Tidewatch&tags=a,b&priority=P2&responders=team:NOC,user:dracula,escalation:4513b7ea-3b91-438f-b7e4-e3e54af9147c&details=env:prod,site:home&source=tidewatch',
    svc,
  );
  await s.send({ title: 'Updates on host', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/v2/alerts');
  t.equal(r.headers.authorization, 'GenieKey 0p5Key-eb243592');
  t.same(r.json, {
    message: 'Updates on host',
    description: 'one updated\nFrom Tidewatch',
    alias: 'tw',
    source: 'tidewatch',
    priority: 'P2',
    tags: ['a', 'b'],
    responders: [{ type: 'team', name: 'NOC' }, { type: 'user', username: 'dracula' }, { type: 'escalation', id: '4513b7ea-3b91-438f-b7e4-e3e54af9147c' }],
    details: { env: 'prod', site: 'home' },
  });
  t.equal(s.redacted.includes('0p5Key-eb243592'), false);
  const plain = sender('opsgenie://api.opsgenie.com/0p5Key-eb243592', svc);
  await plain.send({ title: '', body: 'short' }, never());
  t.same(server.requests[1]!.json, { message: 'short' }, 'a short untitled text is the message');
  await plain.send({ title: '', body: 'y'.repeat(140) }, never());
  t.same(server.requests[2]!.json, { message: 'y'.repeat(130), description: 'y'.repeat(140) }, 'a long one is cut for the message');
  server.answer = () => ({ status: 422, body: { message: 'Key format is not valid: 0p5Key-eb243592' } });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['0p5Key-eb243592']);
});

const PD_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

t.test('pagerduty: POST /v2/enqueue with routing key, summary, severity, source, action and extras', async (t) => {
  const svc = [createPagerDutyService({ baseUrl: server.origin })];
  const s = sender(`pagerduty:///${PD_KEY}?severity=warning&source=nas&dedup_key=tw-1&details=%7B%22n%22%3A1%7D&contexts=link:https://x.test,image:https://x.test/i.png&client=Tidewatch`, svc);
  server.answer = () => ({ status: 202, body: { status: 'success', dedup_key: 'tw-1' } });
  await s.send({ title: 'ignored', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/v2/enqueue');
  t.same(r.json, {
    payload: { summary: 'one updated', severity: 'warning', source: 'nas' },
    routing_key: PD_KEY,
    event_action: 'trigger',
    dedup_key: 'tw-1',
    details: { n: 1 },
    contexts: [{ type: 'link', href: 'https://x.test' }, { type: 'image', src: 'https://x.test/i.png' }],
    client: 'Tidewatch',
  });
  t.equal(s.redacted.includes(PD_KEY), false);
  await sender(`pagerduty://events.pagerduty.com/${PD_KEY}`, svc).send({ title: '', body: 'z'.repeat(1100) }, never());
  t.same(server.requests[1]!.json, { payload: { summary: 'z'.repeat(1024), severity: 'error', source: 'default' }, routing_key: PD_KEY, event_action: 'trigger' }, 'defaults; the summary cut at 1024');
  server.answer = () => ({ status: 400, body: { status: 'invalid event', message: `bad key ${PD_KEY}` } });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), [PD_KEY]);
});

t.test('bark: POST <path>/push with body, device_key, title, badge; a code other than 200 fails', async (t) => {
  server.answer = () => ({ body: { code: 200, message: 'success' } });
  const s = sender(`bark://:B4rkDeviceKey@${server.host}/sub?scheme=http&sound=bell&group=tw&url=https://x.test`);
  await s.send({ title: 'Updates', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/sub/push');
  t.same(r.json, { body: 'one updated', device_key: 'B4rkDeviceKey', title: 'Updates', badge: 0, sound: 'bell', group: 'tw', url: 'https://x.test' });
  t.equal(s.redacted, `bark://:REDACTED@${server.host}/sub?scheme=http&sound=bell&group=tw&url=https%3A%2F%2Fx.test`);
  server.answer = () => ({ status: 400, body: { code: 400, message: 'failed to get device token: B4rkDeviceKey' } });
  t.match(await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['B4rkDeviceKey']), /400 failed to get device token/);
});

t.test('ifttt: one trigger per event with the message (and title) in the chosen values', async (t) => {
  const svc = [createIftttService({ baseUrl: server.origin })];
  const s = sender('ifttt://1fttt-K3y/?events=update,alert&value1=static&messagevalue=3&titlevalue=2', svc);
  await s.send({ title: 'Updates', body: 'one updated' }, never());
  t.same(server.requests.map((r) => r.path), ['/trigger/update/with/key/1fttt-K3y', '/trigger/alert/with/key/1fttt-K3y']);
  t.same(server.requests[0]!.json, { value1: 'static', value2: 'Updates', value3: 'one updated' });
  t.equal(s.redacted, 'ifttt://REDACTED/?events=update,alert&value1=static&messagevalue=3&titlevalue=2');
  server.answer = () => ({ status: 401, body: { errors: [{ message: 'You sent an invalid key 1fttt-K3y' }] } });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['1fttt-K3y']);
});

t.test('join: POST sendPush with everything in the query and no body', async (t) => {
  const svc = [createJoinService({ baseUrl: server.origin })];
  const s = sender('join://shoutrrr:J0inApiKey@join/?devices=dev1,dev2&icon=https://x.test/i.png', svc);
  await s.send({ title: 'Updates', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.method, 'POST');
  t.equal(r.path, '/_ah/api/messaging/v1/sendPush');
  t.same(Object.fromEntries(r.query), { deviceIds: 'dev1,dev2', apikey: 'J0inApiKey', text: 'one updated', title: 'Updates', icon: 'https://x.test/i.png' });
  t.equal(r.body, '');
  t.equal(s.redacted, 'join://shoutrrr:REDACTED@join/?devices=dev1,dev2&icon=https://x.test/i.png');
  server.answer = () => ({ status: 500, body: 'apikey=J0inApiKey rejected' });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['J0inApiKey']);
});

t.test('twilio: one form post per recipient with basic auth; From or MessagingServiceSid', async (t) => {
  const svc = [createTwilioService({ baseUrl: server.origin })];
  server.answer = () => ({ status: 201, body: { sid: 'SM1' } });
  const s = sender('twilio://AC123:Tw1lioT0ken@+1%20(555)%20000-1111/+15550002222/+15550003333?title=Tidewatch', svc);
  await s.send({ title: '', body: 'one updated' }, never());
  t.equal(server.requests.length, 2);
  const r = server.requests[0]!;
  t.equal(r.path, '/2010-04-01/Accounts/AC123/Messages.json');
  t.equal(r.headers.authorization, `Basic ${Buffer.from('AC123:Tw1lioT0ken').toString('base64')}`);
  t.equal(r.headers['content-type'], 'application/x-www-form-urlencoded');
  t.same(Object.fromEntries(new URLSearchParams(r.body)), { To: '+15550002222', Body: 'Tidewatch\none updated', From: '+15550001111' });
  await sender('twilio://AC123:Tw1lioT0ken@MG0123/+15550002222', svc).send({ title: '', body: 'b' }, never());
  t.same(Object.fromEntries(new URLSearchParams(server.requests[2]!.body)), { To: '+15550002222', Body: 'b', MessagingServiceSid: 'MG0123' });
  t.notMatch(s.redacted, /Tw1lioT0ken/);
  server.answer = (req) => (new URLSearchParams(req.body).get('To') === '+15550002222' ? { status: 400, body: { code: 21211, message: 'invalid To' } } : { status: 201 });
  const message = await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['Tw1lioT0ken']);
  t.match(message, /\+15550002222: HTTP 400 invalid To \(21211\)/);
  t.equal(server.requests.length, 5, 'the second recipient is still tried after the first failed');
});

t.test('notifiarr: POST passthrough/<key> with notification and discord parts', async (t) => {
  const svc = [createNotifiarrService({ baseUrl: server.origin })];
  const s = sender('notifiarr://N0tifiarrKey?name=Tidewatch&channel=123456789&color=ff0000&thumbnail=https://x.test/t.png', svc);
  await s.send({ title: 'Updates', body: 'one updated <@42> <@&77>' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/api/v1/notification/passthrough/N0tifiarrKey');
  t.equal(r.headers.accept, 'application/json');
  t.same(r.json, {
    notification: { name: 'Tidewatch' },
    discord: {
      color: 'ff0000',
      ping: { pingUser: 42, pingRole: 77 },
      images: { thumbnail: 'https://x.test/t.png' },
      text: { title: 'Updates', description: 'one updated <@42> <@&77>' },
      ids: { channel: 123456789 },
    },
  });
  t.equal(s.redacted, 'notifiarr://REDACTED?name=Tidewatch&channel=123456789&color=ff0000&thumbnail=https://x.test/t.png');
  server.answer = () => ({ status: 401, body: 'N0tifiarrKey unknown' });
  t.match(await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['N0tifiarrKey']), /authentication failed/);
});

t.test('an answer is read up to 64 KiB, however much the server sends', async (t) => {
  const { httpCall, ANSWER_LIMIT_BYTES } = await import('../../../plugins/notify/services/http.js');
  server.answer = () => ({ status: 500, body: 'x'.repeat(8 * 1024 * 1024) });
  const answer = await httpCall('test', { url: `${server.origin}/big` }, never(), []);
  t.equal(answer.status, 500);
  t.equal(answer.body.length, ANSWER_LIMIT_BYTES);
});
