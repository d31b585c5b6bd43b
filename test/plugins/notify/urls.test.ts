// Parsing --notification-url values: dispatch by scheme, every service's URL forms and defaults, the
// parts each refuses, and that neither an error nor `redacted` ever holds a credential.
import { readFile } from 'node:fs/promises';
import t, { type Test } from 'tap';
import { isTidewatchError } from '../../../core/index.js';
import { BUILTIN_SERVICES, createLoggerService } from '../../../plugins/notify/services/index.js';
import type { NotificationService } from '../../../plugins/notify/service.js';
import { parseNotificationUrls, toParseableUrl } from '../../../plugins/notify/urls.js';

const parse = (url: string, services: readonly NotificationService[] = BUILTIN_SERVICES) => parseNotificationUrls([url], services)[0]!;

/** Parsing fails with a coded config error naming --notification-url, the scheme, and none of `secrets`. */
function refuses(t: Test, url: string, pattern: RegExp, secrets: readonly string[] = []): void {
  try {
    parse(url);
  } catch (err) {
    t.ok(isTidewatchError(err) && err.code === 'TW_ERR_CONFIG', 'a configuration error (exit 2)');
    t.equal((err as { option?: string }).option, 'notification-url');
    const message = (err as Error).message;
    t.match(message, pattern);
    for (const s of secrets) t.notOk(message.includes(s), `the error does not show ${s}`);
    return;
  }
  t.fail(`${url} was accepted`);
}

t.test('every built-in scheme is dispatched to its service', async (t) => {
  const urls: Array<[string, string]> = [
    ['generic://example.com/hook', 'generic'],
    ['generic+https://example.com/hook', 'generic'],
    ['generic+http://example.com/hook', 'generic'],
    ['slack://hook:T01234567-B01234567-abcdefghijklmnopqrstuvwx@webhook', 'slack'],
    ['discord://token@123456', 'discord'],
    ['telegram://110201543:AAHdqTcv@telegram?chats=@c', 'telegram'],
    ['teams://?host=https%3A%2F%2Fprod-00.westus.logic.azure.com%3A443%2Fworkflows%2Fabc%2Ftriggers%2Fmanual%2Fpaths%2Finvoke%3Fsig%3Dx', 'teams'],
    ['gotify://gotify.example.com/AzyoeNS.D4iJLVa', 'gotify'],
    ['ntfy://ntfy.sh/topic', 'ntfy'],
    ['pushover://shoutrrr:tok@user/', 'pushover'],
    ['matrix://:token@matrix.example.org', 'matrix'],
    ['smtp://mail.example.com:587/?from=a@x.test&to=b@x.test', 'smtp'],
    ['logger://', 'logger'],
    ['SLACK://hook:T01234567-B01234567-abcdefghijklmnopqrstuvwx@webhook', 'slack'],
    ['signal://localhost:8080/+1234567890/+0987654321', 'signal'],
    ['mattermost://mm.example/token', 'mattermost'],
    ['googlechat://chat.googleapis.com/v1/spaces/S/messages?key=k&token=t', 'googlechat'],
    ['hangouts://chat.googleapis.com/v1/spaces/S/messages?key=k&token=t', 'googlechat'],
    ['rocketchat://rc.example/a/b', 'rocketchat'],
    ['zulip://bot@z.example:key@z.example/?stream=s', 'zulip'],
    ['bark://:devicekey@bark.example', 'bark'],
    [`pushbullet://${'p'.repeat(34)}`, 'pushbullet'],
    ['opsgenie://api.opsgenie.com/key', 'opsgenie'],
    [`pagerduty:///${'a'.repeat(32)}`, 'pagerduty'],
    ['ifttt://key/?events=e', 'ifttt'],
    ['join://shoutrrr:key@join/?devices=d', 'join'],
    ['lark://open.larksuite.com/token', 'lark'],
    ['wecom://key', 'wecom'],
    ['twilio://AC1:tok@+15550001111/+15550002222', 'twilio'],
    ['notifiarr://key', 'notifiarr'],
  ];
  const senders = parseNotificationUrls(urls.map(([u]) => u), BUILTIN_SERVICES);
  t.same(senders.map((s) => s.service), urls.map(([, s]) => s));
});

t.test('unknown schemes and unparseable URLs', async (t) => {
  refuses(t, 'foo://secret-token@host', /^foo: unknown service \(known: .*generic.*\)$/, ['secret-token']);
  refuses(t, 'pigeon://user:pw@loft', /^pigeon: unknown service/, ['pw@']);
  try {
    parse('just-some-words');
    t.fail('accepted');
  } catch (err) {
    t.match((err as Error).message, /without a scheme/);
  }
  refuses(t, 'ntfy://sec ret@exa mple.com/topic', /^ntfy: not a valid URL/, ['sec ret']);
});

t.test('Go-style URLs WHATWG would misread are made parseable', async (t) => {
  t.equal(toParseableUrl('smtp://me@x.test:p@ss#w/rd@mail:25/?to=a'), 'smtp://me%40x.test:p%40ss%23w%2Frd@mail:25/?to=a');
  t.equal(toParseableUrl('matrix://:tok@h/?rooms=#room:h'), 'matrix://:tok@h/?rooms=%23room:h');
  t.equal(toParseableUrl('generic://h/p?@Authorization=Bearer%20x'), 'generic://h/p?@Authorization=Bearer%20x', 'an @ in the query is not user info');
  t.equal(toParseableUrl('smtp://u:100%@h'), 'smtp://u:100%25@h', 'a bare % is a percent sign');
  t.equal(toParseableUrl('pushbullet://tok/alice@mail.example'), 'pushbullet://tok/alice@mail.example', 'an e-mail target stays in the path');
  t.equal(toParseableUrl('rocketchat://bot@rc.example/a/b/@alice'), 'rocketchat://bot@rc.example/a/b/@alice', 'so does an @user channel');
  const s = parse('matrix://:tok3n-secret@matrix.example.org/?rooms=#room:example.org');
  t.match(s.redacted, /rooms=%23room%3Aexample.org/);
});

t.test('bad parts, per service, never echo the secret', async (t) => {
  refuses(t, 'slack://hook:short@webhook', /^slack: the token is not a Slack token/, ['short']);
  refuses(t, 'slack://hook:T01234567-B01234567/abcdefghijklmnopqrstuvwx@webhook', /separators/, ['abcdefghijklmnopqrstuvwx']);
  refuses(t, 'slack://hook:T01234567-B01234567-abcdefghijklmnopqrstuvwx@webhook?colour=red', /^slack: unknown parameter "colour"$/, ['abcdefghijklmnopqrstuvwx']);
  refuses(t, 'discord://123456', /^discord: the URL has no token/);
  refuses(t, 'discord://tok3n@123/other', /only path allowed is \/raw/, ['tok3n']);
  refuses(t, 'discord://tok3n@123?color=teal', /"color" must be a hex colour/, ['tok3n']);
  refuses(t, 'telegram://110201543:AAHdqTcv@telegram', /^telegram: no chats given/, ['AAHdqTcv']);
  refuses(t, 'telegram://notanumber:AAHdqTcv@telegram?chats=1', /bot token is not/, ['AAHdqTcv']);
  refuses(t, 'telegram://1:AAHdqTcv@telegram?chats=1&parsemode=rtf', /"parsemode" must be one of None, Markdown, HTML, MarkdownV2/, ['AAHdqTcv']);
  refuses(t, 'teams://', /^teams: no workflow URL given/);
  refuses(t, 'teams://?host=https%3A%2F%2Fevil.example%2Fworkflows%2Fsig%3DS3cret', /not a Power Automate workflow URL/, ['S3cret']);
  refuses(t, 'gotify://gotify.example.com/', /application token is missing/);
  refuses(t, 'gotify://gotify.example.com/BadTok3nValue', /application token is missing or malformed/, ['BadTok3nValue']);
  refuses(t, 'gotify://gotify.example.com/AzyoeNS.D4iJLVa?priority=11', /"priority" must be between -2 and 10/, ['AzyoeNS.D4iJLVa']);
  refuses(t, 'gotify://gotify.example.com/AzyoeNS.D4iJLVa?extras=notjson', /"extras" must be a JSON object/, ['AzyoeNS.D4iJLVa']);
  refuses(t, 'ntfy://ntfy.sh/', /^ntfy: the URL names no topic/);
  refuses(t, 'ntfy://u:pAssw0rd@ntfy.sh/t?priority=99', /"priority" must be 1-5/, ['pAssw0rd']);
  refuses(t, 'ntfy://ntfy.sh/t?scheme=ftp', /"scheme" must be http or https/);
  refuses(t, 'pushover://shoutrrr:tok3nvalue@/', /no user key|not a valid URL/, ['tok3nvalue']);
  refuses(t, 'pushover://shoutrrr@userkey1/', /^pushover: the URL has no API token/, ['userkey1']);
  refuses(t, 'pushover://shoutrrr:tok3nvalue@userkey1/?encryptionkey=00', /not supported/, ['tok3nvalue', 'userkey1']);
  refuses(t, 'matrix://matrix.example.org', /^matrix: no password or access token/);
  refuses(t, 'matrix://:tok3nvalue@matrix.example.org?room=a&colour=1', /unknown parameter "colour"/, ['tok3nvalue']);
  refuses(t, 'smtp://user:Passw0rdX@mail/?from=a@x', /^smtp: no recipients/, ['Passw0rdX']);
});

t.test('bad parts of the shoutrrr 0.17 schemes exit 2 and never echo the secret', async (t) => {
  refuses(t, 'signal://u:Passw0rdX@sig.example/+1234567890', /^signal: the URL names no recipient/, ['Passw0rdX']);
  refuses(t, 'signal://u:Passw0rdX@sig.example/notaphone/+1', /^signal: the source is not a phone number/, ['Passw0rdX']);
  refuses(t, 'signal://sig.example/+1234567890/bob?token=T0kenXyz', /^signal: a recipient is neither/, ['T0kenXyz']);
  refuses(t, 'mattermost://mm.example', /^mattermost: the URL has no webhook token/);
  refuses(t, 'mattermost://mm.example/T0kenXyz?colour=red', /^mattermost: unknown parameter "colour"$/, ['T0kenXyz']);
  refuses(t, 'googlechat://chat.googleapis.com/v1/spaces/S/messages?key=K3yXyz', /^googlechat: the URL has no "token"/, ['K3yXyz']);
  refuses(t, 'rocketchat://rc.example/T0kenXyz', /^rocketchat: the URL needs both webhook tokens/, ['T0kenXyz']);
  refuses(t, 'zulip://bot@z.example@z.example/?stream=s', /^zulip: the URL has no API key/);
  refuses(t, 'zulip://bot@z.example:K3yXyz@z.example/', /^zulip: no "stream" given/, ['K3yXyz']);
  refuses(t, 'zulip://bot@z.example:K3yXyz@z.example/?stream=s&type=group', /"type" must be channel or direct/, ['K3yXyz']);
  refuses(t, 'bark://bark.example', /^bark: the URL has no device key/);
  refuses(t, 'bark://:D3viceXyz@bark.example?scheme=ftp', /"scheme" must be http or https/, ['D3viceXyz']);
  refuses(t, 'pushbullet://T0kenXyzTooShort', /^pushbullet: the access token is missing or not 34/, ['T0kenXyzTooShort']);
  refuses(t, 'opsgenie://api.opsgenie.com/', /^opsgenie: the URL has no API key/);
  refuses(t, 'opsgenie://api.opsgenie.com/K3yXyz?priority=urgent', /"priority" must be one of P1/, ['K3yXyz']);
  refuses(t, 'opsgenie://api.opsgenie.com/K3yXyz?responders=escalation:ops', /"responders": escalation entries take an id/, ['K3yXyz']);
  refuses(t, 'pagerduty:///K3yXyz', /^pagerduty: the integration key is missing or not 32/, ['K3yXyz']);
  refuses(t, `pagerduty:///${'b'.repeat(32)}?severity=loud`, /"severity" must be one of critical/, ['b'.repeat(32)]);
  refuses(t, `pagerduty:///${'b'.repeat(32)}?details=%7Bnope`, /"details" must be JSON/, ['b'.repeat(32)]);
  refuses(t, `pagerduty:///${'b'.repeat(32)}?contexts=video:x`, /"contexts" takes link/, ['b'.repeat(32)]);
  refuses(t, 'ifttt://K3yXyz/', /^ifttt: no "events" given/, ['K3yXyz']);
  refuses(t, 'ifttt://K3yXyz/?events=e&messagevalue=4', /"messagevalue" must be between 1 and 3/, ['K3yXyz']);
  refuses(t, 'ifttt://K3yXyz/?events=e&messagevalue=1&titlevalue=1', /name the same value/, ['K3yXyz']);
  refuses(t, 'join://shoutrrr:K3yXyz@join/', /^join: no "devices" given/, ['K3yXyz']);
  refuses(t, 'join://join/?devices=d', /^join: the URL has no API key/);
  refuses(t, 'lark://evil.example/T0kenXyz', /^lark: the host must be open.larksuite.com or open.feishu.cn/, ['T0kenXyz']);
  refuses(t, 'lark://open.larksuite.com/', /^lark: the URL has no bot token/);
  refuses(t, 'wecom://', /^wecom: the URL has no webhook key/);
  refuses(t, 'twilio://AC1:T0kenXyz@+15550001111', /^twilio: the URL names no recipient/, ['T0kenXyz']);
  refuses(t, 'twilio://AC1:T0kenXyz@+15550001111/+1%20555%20000%201111', /a recipient is the sender/, ['T0kenXyz']);
  refuses(t, 'twilio://AC1@+15550001111/+15550002222', /^twilio: the URL has no auth token/);
  refuses(t, 'notifiarr://K3yXyz?channel=general', /"channel" must be a Discord channel id/, ['K3yXyz']);
  refuses(t, 'notifiarr://K3yXyz?colour=red', /^notifiarr: unknown parameter "colour"$/, ['K3yXyz']);
});

t.test('redacted hides every credential and keeps the rest', async (t) => {
  const cases: Array<[string, string[], RegExp]> = [
    ['slack://xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N@C001CH4NN3L?color=good', ['4mt0t4l1YL3g1T5L4cK70k3N', '123456789012'], /^slack:\/\/xoxb:REDACTED@C001CH4NN3L\?color=good$/],
    ['discord://W3dE2OZz4C13_4z@693853386302554172?thread_id=1', ['W3dE2OZz4C13_4z'], /^discord:\/\/REDACTED@693853386302554172\?thread_id=1$/],
    ['telegram://110201543:AAHdqTcvCH1vGWJxfSe@telegram?chats=@c', ['AAHdqTcvCH1vGWJxfSe'], /^telegram:\/\/110201543:REDACTED@telegram\?chats=%40c|^telegram:\/\/110201543:REDACTED@telegram\?chats=@c/],
    ['gotify://g.example.com:8080/sub/AzyoeNS.D4iJLVa?priority=1', ['AzyoeNS.D4iJLVa'], /^gotify:\/\/g\.example\.com:8080\/sub\/REDACTED\?priority=1$/],
    ['ntfy://bob:s3cretpw@ntfy.example.com/alerts?tags=a', ['s3cretpw'], /^ntfy:\/\/bob:REDACTED@ntfy\.example\.com\/alerts\?tags=a$/],
    ['pushover://shoutrrr:apitok3n@userk3y/?devices=d', ['apitok3n', 'userk3y'], /^pushover:\/\/shoutrrr:REDACTED@REDACTED\/\?devices=d$/],
    ['matrix://bot:hunter2x@m.example.org/?rooms=!r:m', ['hunter2x'], /^matrix:\/\/bot:REDACTED@m\.example\.org\//],
    ['smtp://me%40x.test:Passw0rdX@mail.example.com:587/?from=a@x.test&to=b@x.test', ['Passw0rdX'], /^smtp:\/\/me%40x\.test:REDACTED@mail\.example\.com:587\//],
    ['generic://u:pw1234@h.example/hooks/id-9876?@X-Token=zz99zz&template=json', ['pw1234', 'id-9876', 'zz99zz'], /^generic:\/\/REDACTED:REDACTED@h\.example\/REDACTED\?%40X-Token=REDACTED&template=json$/],
  ];
  for (const [url, secrets, shape] of cases) {
    const { redacted } = parse(url);
    for (const s of secrets) t.notOk(redacted.includes(s), `${redacted} hides ${s}`);
    t.match(redacted, shape);
  }
});

t.test('the first service listed for a scheme wins', async (t) => {
  // A plugin can put its own service for a scheme ahead of a built-in one.
  const mine: NotificationService = { schemes: ['slack'], parse: () => ({ service: 'mine', redacted: 'slack://', send: async () => {} }) };
  t.equal(parseNotificationUrls(['slack://x@y'], [mine, ...BUILTIN_SERVICES])[0]!.service, 'mine');
});

t.test('logger writes the message body where it is told', async (t) => {
  const lines: string[] = [];
  const s = parse('logger://', [createLoggerService({ write: (text) => lines.push(text) })]);
  await s.send({ title: 'T', body: 'one updated' }, new AbortController().signal);
  t.same(lines, ['one updated']);
  t.equal(s.redacted, 'logger://');
});

t.test('docs/notifications.md lists every built-in scheme in its services table', async (t) => {
  const doc = await readFile(new URL('../../../docs/notifications.md', import.meta.url), 'utf8');
  const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
  for (const scheme of BUILTIN_SERVICES.flatMap((s) => s.schemes)) {
    t.ok(rows.some((row) => row.split('|')[1]!.includes(`\`${scheme}\``)), `${scheme} has a row`);
  }
});
