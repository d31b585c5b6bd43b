// slack, discord, telegram and teams against loopback stand-ins for their APIs. Their hosts are fixed in
// the URL syntax, so the tests set the factories' base URL (code only; no URL can). Each checks the
// documented request (method, path, headers, JSON fields, auth) and that a refusal never shows a secret.
import t from 'tap';
import { createDiscordService } from '../../../plugins/notify/services/discord.js';
import { createSlackService } from '../../../plugins/notify/services/slack.js';
import { createTeamsService } from '../../../plugins/notify/services/teams.js';
import { createTelegramService } from '../../../plugins/notify/services/telegram.js';
import { parseNotificationUrls } from '../../../plugins/notify/urls.js';
import { CaptureServer, never, rejectsWithout } from '../../helpers/capture-server.js';

const server = await new CaptureServer().start();
t.teardown(() => server.close());
t.beforeEach(() => {
  server.requests.length = 0;
  server.answer = () => ({ status: 200 });
});

const HOOK = 'T01234567-B01234567-abcdefghijklmnopqrstuvwx';
const BOT = 'xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N';

t.test('slack webhook: POST /services/T/B/X with title as text and one attachment per line', async (t) => {
  const [s] = parseNotificationUrls(
    [`slack://hook:${HOOK}@webhook?color=good&title=Great+News&icon=man-scientist&botname=Shoutrrrbot`],
    [createSlackService({ webhookBaseUrl: server.origin })],
  );
  server.answer = () => ({ status: 200, body: 'ok' });
  await s!.send({ title: '', body: 'line one\nline two\n' }, never());
  const r = server.requests[0]!;
  t.equal(r.method, 'POST');
  t.equal(r.path, '/services/T01234567/B01234567/abcdefghijklmnopqrstuvwx');
  t.equal(r.headers['content-type'], 'application/json');
  t.same(r.json, {
    text: 'Great News',
    username: 'Shoutrrrbot',
    attachments: [{ text: 'line one', color: 'good' }, { text: 'line two', color: 'good' }],
    icon_emoji: 'man-scientist',
  });
  t.equal(s!.redacted, 'slack://hook:REDACTED@webhook?color=good&title=Great+News&icon=man-scientist&botname=Shoutrrrbot');

  server.answer = () => ({ status: 404, body: `no_service for ${HOOK}` });
  const message = await rejectsWithout(s!.send({ title: 'x', body: 'y' }, never()), ['abcdefghijklmnopqrstuvwx']);
  t.match(message, /slack: HTTP 404/);
});

t.test('slack legacy form slack://botname@T/B/X is the same webhook', async (t) => {
  const [s] = parseNotificationUrls(
    ['slack://watchtower@T01234567/B01234567/abcdefghijklmnopqrstuvwx?icon=https://x.test/i.png'],
    [createSlackService({ webhookBaseUrl: server.origin })],
  );
  await s!.send({ title: 'Title', body: 'b' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/services/T01234567/B01234567/abcdefghijklmnopqrstuvwx');
  t.same(r.json, { text: 'Title', username: 'watchtower', attachments: [{ text: 'b' }], icon_url: 'https://x.test/i.png' });
  t.notMatch(s!.redacted, /abcdefghijklmnopqrstuvwx/);
});

t.test('slack bot token: chat.postMessage with Bearer auth and the channel', async (t) => {
  const [s] = parseNotificationUrls([`slack://${BOT}@C001CH4NN3L?thread_ts=1234.5`], [createSlackService({ apiBaseUrl: server.origin })]);
  server.answer = () => ({ status: 200, body: { ok: true } });
  await s!.send({ title: 'T', body: 'b' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/api/chat.postMessage');
  t.equal(r.headers.authorization, 'Bearer xoxb-123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N');
  t.same(r.json, { text: 'T', attachments: [{ text: 'b' }], thread_ts: '1234.5', channel: 'C001CH4NN3L' });

  server.answer = () => ({ status: 200, body: { ok: false, error: 'channel_not_found' } });
  const message = await rejectsWithout(s!.send({ title: 'T', body: 'b' }, never()), ['4mt0t4l1YL3g1T5L4cK70k3N']);
  t.match(message, /channel_not_found/);
});

t.test('discord: embeds per line with the title, content for a lone line, username/avatar, thread_id', async (t) => {
  const token = 'W3dE2OZz4C13_4z_uHfDOoC7BqTW288s';
  const [s] = parseNotificationUrls(
    [`discord://${token}@693853386302554172?username=Bot&avatar=https://a.test/x.png&thread_id=42`],
    [createDiscordService({ baseUrl: server.origin })],
  );
  server.answer = () => ({ status: 204 });
  await s!.send({ title: 'Updates', body: 'a\n\nb' }, never());
  await s!.send({ title: '', body: 'just this' }, never());
  const [first, second] = server.requests;
  t.equal(first!.path, `/api/webhooks/693853386302554172/${token}`);
  t.equal(first!.query.get('thread_id'), '42');
  t.same(first!.json, {
    embeds: [
      { title: 'Updates', description: 'a', color: 0x50d9ff },
      { description: 'b', color: 0x50d9ff },
    ],
    username: 'Bot',
    avatar_url: 'https://a.test/x.png',
  });
  t.same(second!.json, { content: 'just this', username: 'Bot', avatar_url: 'https://a.test/x.png' });
  t.notMatch(s!.redacted, new RegExp(token));

  server.answer = () => ({ status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } });
  const message = await rejectsWithout(s!.send({ title: '', body: 'x' }, never()), [token]);
  t.match(message, /discord: HTTP 401/);
});

t.test('discord: more than ten lines go in several posts; /raw posts the body itself', async (t) => {
  const [s] = parseNotificationUrls(['discord://tok@1?color=0x406170'], [createDiscordService({ baseUrl: server.origin })]);
  await s!.send({ title: 'T', body: Array.from({ length: 12 }, (_, i) => `l${i}`).join('\n') }, never());
  t.equal(server.requests.length, 2);
  t.equal((server.requests[0]!.json as { embeds: unknown[] }).embeds.length, 10);
  t.equal((server.requests[0]!.json as { embeds: Array<{ color: number }> }).embeds[0]!.color, 0x406170);
  const [raw] = parseNotificationUrls(['discord://tok@1/raw'], [createDiscordService({ baseUrl: server.origin })]);
  await raw!.send({ title: '', body: '{"content":"as is"}' }, never());
  t.same(server.requests[2]!.json, { content: 'as is' });
});

t.test('telegram: sendMessage per chat, a title as HTML, topic threads, flags inverted', async (t) => {
  const token = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const [s] = parseNotificationUrls(
    [`telegram://${token}@telegram?chats=@mychannel,-1001234:7&notification=no&preview=false`],
    [createTelegramService({ baseUrl: server.origin })],
  );
  server.answer = () => ({ status: 200, body: { ok: true, result: { message_id: 1 } } });
  await s!.send({ title: 'Updates <1>', body: 'a & b' }, never());
  t.equal(server.requests.length, 2);
  const [one, two] = server.requests;
  t.equal(one!.path, `/bot${token}/sendMessage`);
  t.same(one!.json, {
    text: '<b>Updates &lt;1&gt;</b>\na &amp; b',
    chat_id: '@mychannel',
    disable_web_page_preview: true,
    disable_notification: true,
    parse_mode: 'HTML',
  });
  t.match(two!.json, { chat_id: '-1001234', message_thread_id: 7 });
  await s!.send({ title: '', body: 'plain <text>' }, never());
  t.same(server.requests[2]!.json, {
    text: 'plain <text>', chat_id: '@mychannel', disable_web_page_preview: true, disable_notification: true,
  }, 'no title, no parse mode: the text as is');
  t.notMatch(s!.redacted, /AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/);

  server.answer = () => ({ status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } });
  const message = await rejectsWithout(s!.send({ title: '', body: 'x' }, never()), ['AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw']);
  t.match(message, /chat not found/);
});

t.test('teams: an Adaptive Card POSTed to the workflow URL', async (t) => {
  const workflow = 'https://prod-00.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-00&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=S1gS3cr3tValue';
  const [s] = parseNotificationUrls(
    [`teams://?host=${encodeURIComponent(workflow)}&color=red&title=Alert`],
    [createTeamsService({ baseUrl: server.origin })],
  );
  server.answer = () => ({ status: 202 });
  await s!.send({ title: '', body: 'one\n\ntwo' }, never());
  const r = server.requests[0]!;
  t.equal(r.path, '/workflows/abc123/triggers/manual/paths/invoke');
  t.equal(r.query.get('sig'), 'S1gS3cr3tValue');
  t.same(r.json, {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.2',
        body: [
          { type: 'TextBlock', text: 'Alert', color: 'attention', weight: 'Bolder', size: 'Medium' },
          { type: 'TextBlock', text: 'one', wrap: true },
          { type: 'TextBlock', text: 'two', wrap: true },
        ],
      },
    }],
  });
  t.equal(s!.redacted, 'teams://?host=REDACTED&color=red&title=Alert');
  server.answer = () => ({ status: 400, body: `bad sig S1gS3cr3tValue` });
  await rejectsWithout(s!.send({ title: '', body: 'x' }, never()), ['S1gS3cr3tValue']);
});

t.test('the production factories target the real hosts', async (t) => {
  // Nothing leaves the machine: the signal is already aborted, and the error names the host it was for.
  // The URL syntax has no way to point these elsewhere.
  const aborted = AbortSignal.abort();
  const hostOf = async (url: string, services: Parameters<typeof parseNotificationUrls>[1]) =>
    rejectsWithout(parseNotificationUrls([url], services)[0]!.send({ title: 'T', body: 'b' }, aborted), []);
  t.match(await hostOf(`slack://hook:${HOOK}@webhook`, [createSlackService()]), /^slack: request to hooks\.slack\.com failed: cancelled$/);
  t.match(await hostOf(`slack://${BOT}@C1`, [createSlackService()]), /^slack: request to slack\.com failed/);
  t.match(await hostOf('discord://tok@1', [createDiscordService()]), /^discord: request to discord\.com failed/);
  t.match(await hostOf('telegram://1:abc@telegram?chats=1', [createTelegramService()]), /^telegram: request to api\.telegram\.org failed/);
  const workflow = encodeURIComponent('https://prod-00.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x');
  t.match(await hostOf(`teams://?host=${workflow}`, [createTeamsService()]), /^teams: request to prod-00\.westus\.logic\.azure\.com failed/);
  t.throws(
    () => parseNotificationUrls(['teams://?host=https%3A%2F%2F127.0.0.1%2Fworkflows%2Fx'], [createTeamsService()]),
    { message: /teams: host is not a Power Automate workflow URL/ },
    'a loopback (or any other) host is refused',
  );
  t.throws(
    () => parseNotificationUrls(['teams://?host=https%3A%2F%2Foutlook.webhook.office.com%2Fwebhookb2%2Fx'], [createTeamsService()]),
    { message: /workflow URL/ },
    'the retired connector URLs are refused',
  );
});
