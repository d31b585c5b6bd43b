// signal, mattermost, googlechat, rocketchat, zulip, lark and wecom against loopback stand-ins for their
// servers. Signal, mattermost and zulip name their server in the URL; signal and mattermost reach a
// loopback one with shoutrrr's own `disabletls=yes`, the others through their factory's test-only base URL
// (code only; no URL can). Each checks the documented request and that a refusal never shows a secret.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { createGoogleChatService } from '../../../plugins/notify/services/googlechat.js';
import { BUILTIN_SERVICES } from '../../../plugins/notify/services/index.js';
import { createLarkService } from '../../../plugins/notify/services/lark.js';
import { createRocketChatService } from '../../../plugins/notify/services/rocketchat.js';
import { createWeComService } from '../../../plugins/notify/services/wecom.js';
import { createZulipService } from '../../../plugins/notify/services/zulip.js';
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
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

t.test('signal: POST /v2/send with message, number, recipients; Bearer token or basic auth', async (t) => {
  const s = sender(`signal://${server.host}/+1234567890/+0987654321/group.abc/def=/+1122334455?disabletls=yes&token=S1gnalT0ken`);
  server.answer = () => ({ status: 201, body: { timestamp: 1 } });
  await s.send({ title: 'Tidewatch updates', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.method, 'POST');
  t.equal(r.path, '/v2/send');
  t.equal(r.headers['content-type'], 'application/json');
  t.equal(r.headers.authorization, 'Bearer S1gnalT0ken');
  t.same(r.json, { message: 'one updated', number: '+1234567890', recipients: ['+0987654321', 'group.abc/def=', '+1122334455'] }, 'a group id keeps its slashes; no title');
  t.notMatch(s.redacted, /S1gnalT0ken/);

  const b = sender(`signal://alice:pa55w0rd@${server.host}/+1234567890/+0987654321?disabletls=yes`);
  await b.send({ title: '', body: 'x' }, never());
  t.equal(server.requests[1]!.headers.authorization, basic('alice', 'pa55w0rd'));
  t.equal(b.redacted, `signal://alice:REDACTED@${server.host}/+1234567890/+0987654321?disabletls=yes`);

  const real = sender('signal://signal.example/+1234567890/+0987654321');
  const cancelled = await rejectsWithout(real.send({ title: '', body: 'x' }, AbortSignal.abort()), []);
  t.match(cancelled, /^signal: request to signal\.example:8080 failed: cancelled$/, 'HTTPS on port 8080 by default');

  server.answer = () => ({ status: 400, body: { error: 'S1gnalT0ken is not registered' } });
  const message = await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['S1gnalT0ken']);
  t.match(message, /^signal: HTTP 400/);
});

t.test('mattermost: POST /hooks/<token> with the title as first line, channel, username, icon', async (t) => {
  const s = sender(`mattermost://bot@${server.host}/Mm7oken123/town-square?disabletls=yes&icon=https://x.test/i.png`);
  await s.send({ title: 'Updates', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/hooks/Mm7oken123');
  t.same(r.json, { text: 'Updates\none updated', username: 'bot', channel: 'town-square', icon_url: 'https://x.test/i.png' });
  t.equal(s.redacted, `mattermost://bot@${server.host}/REDACTED?disabletls=yes&icon=https%3A%2F%2Fx.test%2Fi.png`);
  await sender(`mattermost://${server.host}/Mm7oken123?disabletls=yes&icon=ghost&title=T`).send({ title: '', body: 'b' }, never());
  t.same(server.requests[1]!.json, { text: 'T\nb', icon_emoji: 'ghost' }, 'the URL title when the notifier gives none');
  server.answer = () => ({ status: 201, body: 'Mm7oken123' });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['Mm7oken123']);
});

t.test('googlechat: the webhook URL over HTTPS with key and token, {"text"}', async (t) => {
  const svc = [createGoogleChatService({ baseUrl: server.origin })];
  const s = sender('googlechat://chat.googleapis.com/v1/spaces/SPACE/messages?key=K3yValue&token=T0kenValue', svc);
  await s.send({ title: 'ignored', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/v1/spaces/SPACE/messages');
  t.equal(r.query.get('key'), 'K3yValue');
  t.equal(r.query.get('token'), 'T0kenValue');
  t.same(r.json, { text: 'one updated' });
  t.equal(s.redacted, 'googlechat://chat.googleapis.com/v1/spaces/SPACE/messages?key=REDACTED&token=REDACTED');
  t.equal(sender('hangouts://chat.googleapis.com/v1/spaces/S/messages?key=a&token=b').service, 'googlechat', 'hangouts:// is the old name');
  server.answer = () => ({ status: 403, body: 'T0kenValue revoked' });
  await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['T0kenValue', 'K3yValue']);
});

t.test('rocketchat: POST /hooks/<A>/<B> with text, username and #channel or @user', async (t) => {
  const svc = [createRocketChatService({ baseUrl: server.origin })];
  const s = sender('rocketchat://bot@chat.example:3000/T0kenA/T0kenB/#updates', svc);
  await s.send({ title: 'ignored', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/hooks/T0kenA/T0kenB');
  t.same(r.json, { text: 'one updated', username: 'bot', channel: '#updates' });
  t.notMatch(s.redacted, /T0kenA|T0kenB/);
  await sender('rocketchat://chat.example/T0kenA/T0kenB/general', svc).send({ title: '', body: 'b' }, never());
  t.same(server.requests[1]!.json, { text: 'b', channel: '#general' });
  await sender('rocketchat://chat.example/T0kenA/T0kenB/@alice', svc).send({ title: '', body: 'b' }, never());
  t.same(server.requests[2]!.json, { text: 'b', channel: '@alice' });
});

t.test('zulip: a form to /api/v1/messages with basic auth; the title becomes the topic', async (t) => {
  const svc = [createZulipService({ baseUrl: server.origin })];
  const s = sender('zulip://bot%40zulip.example:Zul1pKey@zulip.example/?stream=ops', svc);
  await s.send({ title: 'Tidewatch updates', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/api/v1/messages');
  t.equal(r.headers['content-type'], 'application/x-www-form-urlencoded');
  t.equal(r.headers.authorization, basic('bot@zulip.example', 'Zul1pKey'));
  t.same(Object.fromEntries(new URLSearchParams(r.body)), { type: 'channel', to: 'ops', content: 'one updated', topic: 'Tidewatch updates' });
  await sender('zulip://bot@zulip.example:Zul1pKey@zulip.example/?stream=ops&topic=deploys', svc).send({ title: 'T', body: 'b' }, never());
  t.same(Object.fromEntries(new URLSearchParams(server.requests[1]!.body)), { type: 'channel', to: 'ops', content: 'T\n\nb', topic: 'deploys' }, 'with a topic, the title heads the text');
  await sender('zulip://bot@zulip.example:Zul1pKey@zulip.example/?type=direct&to=7,alice@zulip.example&read_by_sender=true', svc).send({ title: '', body: 'b' }, never());
  t.same(Object.fromEntries(new URLSearchParams(server.requests[2]!.body)), { type: 'direct', to: '["7","alice@zulip.example"]', content: 'b', read_by_sender: 'true' });
  t.equal(s.redacted, 'zulip://bot%40zulip.example:REDACTED@zulip.example/?stream=ops');
  const long = await rejectsWithout(s.send({ title: '', body: 'x'.repeat(10_001) }, never()), ['Zul1pKey']);
  t.match(long, /10000 bytes/);
});

t.test('lark: text without a title, a signed post with title and link', async (t) => {
  const svc = [createLarkService({ baseUrl: server.origin, now: () => 1_700_000_000_000 })];
  server.answer = () => ({ body: { code: 0, msg: 'success' } });
  await sender('lark://open.larksuite.com/L4rkToken', svc).send({ title: '', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/open-apis/bot/v2/hook/L4rkToken');
  t.same(r.json, { msg_type: 'text', content: { text: 'one updated' } });
  const s = sender('lark://open.feishu.cn/L4rkToken?secret=S3cretSign&link=https://x.test', svc);
  await s.send({ title: 'Updates', body: 'b' }, never());
  const sign = createHmac('sha256', '1700000000\nS3cretSign').update('').digest('base64');
  t.same(server.requests[1]!.json, {
    msg_type: 'post',
    content: { post: { en_us: { title: 'Updates', content: [[{ tag: 'text', text: 'b' }], [{ tag: 'a', text: 'More Info', href: 'https://x.test' }]] } } },
    timestamp: '1700000000',
    sign,
  });
  t.equal(s.redacted, 'lark://open.feishu.cn/REDACTED?secret=REDACTED&link=https%3A%2F%2Fx.test');
  server.answer = () => ({ body: { code: 19021, msg: 'sign match fail' } });
  t.match(await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['L4rkToken', 'S3cretSign']), /19021 sign match fail/, 'a 200 with an error code is a failure');
});

t.test('wecom: POST /cgi-bin/webhook/send?key=… with a text message and mention lists', async (t) => {
  const svc = [createWeComService({ baseUrl: server.origin })];
  server.answer = () => ({ body: { errcode: 0, errmsg: 'ok' } });
  const s = sender('wecom://W3comKey-123?mentioned_list=alice,@all&mentioned_mobile_list=13800001111', svc);
  await s.send({ title: 'ignored', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/cgi-bin/webhook/send');
  t.equal(r.query.get('key'), 'W3comKey-123');
  t.same(r.json, { msgtype: 'text', text: { content: 'one updated', mentioned_list: ['alice', '@all'], mentioned_mobile_list: ['13800001111'] } });
  t.equal(s.redacted, 'wecom://REDACTED?mentioned_list=alice,@all&mentioned_mobile_list=13800001111');
  server.answer = () => ({ body: { errcode: 93000, errmsg: 'invalid webhook url W3comKey-123' } });
  t.match(await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['W3comKey-123']), /93000/);
});
