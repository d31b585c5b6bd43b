// gotify, ntfy, pushover and matrix against loopback stand-ins for their servers. Gotify, ntfy and matrix
// name their server in the URL, so the tests use loopback URLs with shoutrrr's own TLS-off parameters;
// pushover's host is fixed, so its factory's base URL is set in code.
import t from 'tap';
import { BUILTIN_SERVICES } from '../../../plugins/notify/services/index.js';
import { createPushoverService } from '../../../plugins/notify/services/pushover.js';
import { parseNotificationUrls } from '../../../plugins/notify/urls.js';
import { CaptureServer, never, rejectsWithout } from '../../helpers/capture-server.js';

const server = await new CaptureServer().start();
t.teardown(() => server.close());
t.beforeEach(() => {
  server.requests.length = 0;
  server.answer = () => ({ status: 200, body: {} });
});
const sender = (url: string) => parseNotificationUrls([url], BUILTIN_SERVICES)[0]!;

const GOTIFY_TOKEN = 'AzyoeNS.D4iJLVa';

t.test('gotify: POST <subpath>/message?token=…, JSON message, title, priority, extras', async (t) => {
  const s = sender(`gotify://${server.host}/gotify/${GOTIFY_TOKEN}?disabletls=yes&priority=5&extras=%7B%22a%22%3A1%7D`);
  await s.send({ title: 'Updates', body: 'one updated' }, never());
  const r = server.requests[0]!;
  t.equal(r.method, 'POST');
  t.equal(r.path, '/gotify/message');
  t.equal(r.query.get('token'), GOTIFY_TOKEN);
  t.equal(r.headers['content-type'], 'application/json');
  t.same(r.json, { message: 'one updated', title: 'Updates', priority: 5, extras: { a: 1 } });
  t.equal(s.redacted, `gotify://${server.host}/gotify/REDACTED?disabletls=yes&priority=5&extras=%7B%22a%22%3A1%7D`);

  await sender(`gotify://${server.host}/${GOTIFY_TOKEN}?disabletls=yes&useheader=yes`).send({ title: '', body: 'b' }, never());
  const h = server.requests[1]!;
  t.equal(h.path, '/message');
  t.equal(h.query.get('token'), null, 'the header form keeps the token out of the URL');
  t.equal(h.headers['x-gotify-key'], GOTIFY_TOKEN);
  t.same(h.json, { message: 'b', title: 'Shoutrrr notification', priority: 0, extras: null }, 'the default title');

  server.answer = () => ({ status: 401, body: { error: 'Unauthorized', errorCode: 401, errorDescription: `token ${GOTIFY_TOKEN} invalid` } });
  const message = await rejectsWithout(s.send({ title: '', body: 'x' }, never()), [GOTIFY_TOKEN]);
  t.match(message, /gotify: HTTP 401 \(Unauthorized: token REDACTED invalid\)/);
});

t.test('ntfy: POST /<topic>, the body as text, options as headers, basic auth', async (t) => {
  const s = sender(`ntfy://alice:pa55word@${server.host}/alerts?disabletls=yes&priority=5&tags=warning,fire&title=System+Alert&click=https://x.test&cache=no&actions=view,%20Open,%20https://x.test;http,%20Go,%20https://y.test`);
  await s.send({ title: '', body: 'disk full' }, never());
  const r = server.requests[0]!;
  t.equal(r.method, 'POST');
  t.equal(r.path, '/alerts');
  t.equal(r.body, 'disk full');
  t.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
  t.equal(r.headers.title, 'System Alert');
  t.equal(r.headers.priority, 'Max');
  t.equal(r.headers.tags, 'warning,fire');
  t.equal(r.headers.click, 'https://x.test');
  t.equal(r.headers.cache, 'no');
  t.equal(r.headers.firebase, undefined);
  t.equal(r.headers.actions, 'view, Open, https://x.test;http, Go, https://y.test');
  t.equal(r.headers.authorization, `Basic ${Buffer.from('alice:pa55word').toString('base64')}`);
  t.equal(s.redacted.includes('pa55word'), false);

  await sender(`ntfy://${server.host}/t?scheme=http&markdown=yes`).send({ title: 'Überschrift', body: '**b**' }, never());
  const m = server.requests[1]!;
  t.equal(m.headers['content-type'], 'text/markdown');
  t.equal(m.headers.priority, 'Default');
  t.equal(m.headers.title, `=?UTF-8?B?${Buffer.from('Überschrift').toString('base64')}?=`, 'non-ASCII titles are RFC 2047 encoded');

  server.answer = () => ({ status: 403, body: { code: 40301, http: 403, error: 'forbidden' } });
  const message = await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['pa55word']);
  t.match(message, /forbidden \(40301\)/);
});

t.test('pushover: a form post to /1/messages.json', async (t) => {
  const [s] = parseNotificationUrls(
    ['pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/?devices=phone,tablet&priority=1&title=Custom'],
    [createPushoverService({ baseUrl: server.origin })],
  );
  await s!.send({ title: '', body: 'hello' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/1/messages.json');
  t.equal(r.headers['content-type'], 'application/x-www-form-urlencoded');
  t.same(Object.fromEntries(new URLSearchParams(r.body)), {
    device: 'phone,tablet', user: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG', token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', message: 'hello', title: 'Custom', priority: '1',
  });
  t.notMatch(s!.redacted, /azGDORePK8gMaC0QOYAMyEEuzJnyUi|uQiRzpo4DXghDmr9QzzfQu27cmVRsG/);
  const [real] = parseNotificationUrls(['pushover://shoutrrr:tok@user/'], [createPushoverService()]);
  const toReal = await rejectsWithout(real!.send({ title: '', body: 'x' }, AbortSignal.abort()), []);
  t.match(toReal, /^pushover: request to api\.pushover\.net failed: cancelled$/, 'the default factory targets the real API (nothing sent)');
  server.answer = () => ({ status: 400, body: { user: 'invalid', errors: ['user identifier is invalid'], status: 0 } });
  await rejectsWithout(s!.send({ title: '', body: 'x' }, never()), ['azGDORePK8gMaC0QOYAMyEEuzJnyUi', 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG']);
});

t.test('matrix with an access token: join an alias, PUT m.room.message with a transaction id', async (t) => {
  server.answer = (r) => (r.path.startsWith('/_matrix/client/v3/join/') ? { body: { room_id: '!abc:example.org' } } : { body: { event_id: '$e' } });
  const s = sender(`matrix://:syt_AccessTok3n@${server.host}/?disabletls=yes&rooms=#updates:example.org,!direct:example.org&title=Tidewatch`);
  await s.send({ title: '', body: 'one updated' }, never());
  const [join, first, second] = server.requests;
  t.equal(join!.method, 'POST');
  t.equal(join!.path, '/_matrix/client/v3/join/#updates:example.org');
  t.equal(join!.headers.authorization, 'Bearer syt_AccessTok3n');
  t.equal(first!.method, 'PUT');
  t.match(first!.path, /^\/_matrix\/client\/v3\/rooms\/!abc:example\.org\/send\/m\.room\.message\/[\w-]+$/);
  t.same(first!.json, { msgtype: 'm.text', body: 'Tidewatch\n\none updated' });
  t.match(second!.path, /^\/_matrix\/client\/v3\/rooms\/!direct:example\.org\/send\/m\.room\.message\//);
  t.not(first!.path.split('/').pop(), second!.path.split('/').pop(), 'each send has its own transaction id');
  t.equal(s.redacted.includes('syt_AccessTok3n'), false);

  server.answer = () => ({ status: 403, body: { errcode: 'M_FORBIDDEN', error: 'syt_AccessTok3n may not post' } });
  const message = await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['syt_AccessTok3n']);
  t.match(message, /M_FORBIDDEN/);
});

t.test('matrix with user and password: logs in once, then posts to every joined room', async (t) => {
  server.answer = (r) => {
    if (r.path === '/_matrix/client/v3/login' && r.method === 'GET') return { body: { flows: [{ type: 'm.login.password' }] } };
    if (r.path === '/_matrix/client/v3/login') return { body: { access_token: 'fresh-token', user_id: '@bot:x' } };
    if (r.path === '/_matrix/client/v3/joined_rooms') return { body: { joined_rooms: ['!one:x'] } };
    return { body: { event_id: '$e' } };
  };
  const s = sender(`matrix://bot:hunter2pass@${server.host}?disableTLS=yes`);
  await s.send({ title: '', body: 'a' }, never());
  await s.send({ title: '', body: 'b' }, never());
  const logins = server.requests.filter((r) => r.path === '/_matrix/client/v3/login' && r.method === 'POST');
  t.equal(logins.length, 1, 'the token is kept');
  t.match(logins[0]!.json, { type: 'm.login.password', identifier: { type: 'm.id.user', user: 'bot' }, password: 'hunter2pass' });
  const sends = server.requests.filter((r) => r.method === 'PUT');
  t.equal(sends.length, 2);
  t.equal(sends[0]!.headers.authorization, 'Bearer fresh-token');
  t.match(sends[0]!.path, /rooms\/!one:x\/send/);
});
