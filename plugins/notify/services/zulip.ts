// `zulip://<bot e-mail>:<bot API key>@host[:port]/?stream=<channel>&topic=<topic>`: Zulip's
// `POST /api/v1/messages`, a form with basic auth (docs/notifications.md#services). `type=direct` with
// `to=` (user ids or e-mails, comma-separated) sends a direct message. The title becomes the topic when
// none is set, else the message's first line. Zulip's default limits apply before sending: a topic of at
// most 60 characters, a message of at most 10000 bytes.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { basicAuth, expectStatus, httpCall, httpService, type HttpServiceOptions, type HttpServiceSettings, notificationFailed } from './http.js';
import { UrlQuery, redactUrl, userinfo } from './query.js';

export type ZulipOptions = HttpServiceOptions;

const TOPIC_MAX = 60;
const CONTENT_MAX = 10_000;

export function createZulipService(options: ZulipOptions = {}): NotificationService {
  return httpService(['zulip'], options, parseZulip);
}

function parseZulip(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'zulip');
  const { user: botMail, password } = userinfo(url);
  const stream = q.get('stream') ?? '';
  const topic = q.get('topic') ?? '';
  const configTitle = q.get('title') ?? '';
  const type = (q.get('type') ?? '') || 'channel';
  const to = q.list('to');
  const readBySender = q.bool('read_by_sender', false);
  q.rejectUnknown();
  if (botMail === '') throw q.bad('the URL has no bot e-mail (zulip://<bot e-mail>:<API key>@host)');
  if (password === undefined) throw q.bad('the URL has no API key (zulip://<bot e-mail>:<API key>@host)');
  if (url.host === '') throw q.bad('the URL names no host');
  if (type !== 'channel' && type !== 'direct') throw q.bad('parameter "type" must be channel or direct');
  // Shoutrrr finds a missing recipient at every send; it is known now.
  const recipients = type === 'direct' ? (to.length > 0 ? to : stream.split(',').map((s) => s.trim()).filter(Boolean)) : [];
  if (type === 'channel' && stream === '') throw q.bad('no "stream" given (the channel to post to)');
  if (type === 'direct' && recipients.length === 0) throw q.bad('no "to" given (the users of a direct message)');
  if ([...topic].length > TOPIC_MAX) throw q.bad(`parameter "topic" is longer than ${TOPIC_MAX} characters`);

  const endpoint = `${base ?? `https://${url.host}`}/api/v1/messages`;
  const authorization = basicAuth(botMail, password);
  const secrets = [password];
  const redacted = redactUrl(url, { password: true });

  return {
    service: 'zulip',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      let title = message.title || configTitle;
      let subject = topic;
      if (subject === '' && title !== '') {
        subject = title;
        title = '';
      }
      if ([...subject].length > TOPIC_MAX) subject = `${[...subject].slice(0, TOPIC_MAX - 1).join('')}…`;
      const content = title === '' ? message.body : `${title}\n\n${message.body}`;
      if (Buffer.byteLength(content) > CONTENT_MAX) {
        throw notificationFailed('zulip', `the message is longer than Zulip's ${CONTENT_MAX} bytes`);
      }
      const form = new URLSearchParams({ type, to: type === 'direct' ? JSON.stringify(recipients) : stream, content });
      if (subject !== '' && type !== 'direct') form.set('topic', subject);
      if (readBySender) form.set('read_by_sender', 'true');
      const answer = await httpCall(
        'zulip',
        {
          url: endpoint,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
          body: form.toString(),
          timeoutMs,
        },
        signal,
        secrets,
      );
      expectStatus('zulip', answer, secrets, [200]);
    },
  };
}
