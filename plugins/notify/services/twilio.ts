// `twilio://<account SID>:<auth token>@<from number or messaging service SID>/<to>[/<to>…]`: one SMS per
// recipient through Twilio's `POST /2010-04-01/Accounts/<SID>/Messages.json`, a form (`To`, `Body`,
// `From` or `MessagingServiceSid` for an `MG…` sender) with basic auth (docs/notifications.md#services).
// Spaces, dashes, dots and parentheses are dropped from numbers; the title is the first line of the text.
// Every recipient is tried; the send fails when any of them did.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { basicAuth, excerpt, httpCall, httpService, type HttpServiceOptions, type HttpServiceSettings, jsonOf, notificationFailed, scrub } from './http.js';
import { UrlQuery, decodePart, pathSegments, userinfo } from './query.js';

export type TwilioOptions = HttpServiceOptions;

const SERVICE_PREFIX = 'MG';

export function createTwilioService(options: TwilioOptions = {}): NotificationService {
  return httpService(['twilio'], options, parseTwilio);
}

export function normalizePhone(number: string): string {
  return number.startsWith(SERVICE_PREFIX) ? number : number.replace(/[\s\-().]/g, '');
}

function parseTwilio(url: URL, { base: testBase, timeoutMs }: HttpServiceSettings): NotificationSender {
  const base = testBase ?? 'https://api.twilio.com';
  const q = new UrlQuery(url, 'twilio');
  const { user: sid, password } = userinfo(url);
  const token = password ?? '';
  const from = normalizePhone(decodePart(url.hostname));
  const to = pathSegments(url).map((s) => normalizePhone(s.trim())).filter((s) => s !== '');
  const configTitle = q.get('title') ?? '';
  q.rejectUnknown();
  if (sid === '') throw q.bad('the URL has no account SID (twilio://<SID>:<token>@<from>/<to>)');
  if (token === '') throw q.bad('the URL has no auth token (twilio://<SID>:<token>@<from>/<to>)');
  if (from === '') throw q.bad('the URL has no sender number or messaging service SID');
  if (to.length === 0) throw q.bad('the URL names no recipient number');
  if (!from.startsWith(SERVICE_PREFIX) && to.includes(from)) throw q.bad('a recipient is the sender number');

  const endpoint = `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
  const authorization = basicAuth(sid, token);
  const secrets = [token];
  const redacted = `twilio://${encodeURIComponent(sid)}:REDACTED@${url.host}${url.pathname}${url.search}`;

  return {
    service: 'twilio',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const title = message.title || configTitle;
      const body = title === '' ? message.body : `${title}\n${message.body}`;
      const failures: string[] = [];
      for (const number of to) {
        const form = new URLSearchParams({ To: number, Body: body });
        form.set(from.startsWith(SERVICE_PREFIX) ? 'MessagingServiceSid' : 'From', from);
        try {
          const answer = await httpCall(
            'twilio',
            { url: endpoint, headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization }, body: form.toString(), timeoutMs },
            signal,
            secrets,
          );
          if (answer.status >= 200 && answer.status < 300) continue;
          const res = jsonOf(answer.body) as { code?: unknown; message?: unknown } | undefined;
          const why = typeof res?.message === 'string' ? `${res.message} (${String(res.code ?? '')})` : excerpt(answer.body).slice(2);
          failures.push(`${number}: HTTP ${answer.status}${why ? ` ${why}` : ''}`);
        } catch (err) {
          if (signal.aborted) throw err;
          failures.push(`${number}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (failures.length > 0) throw notificationFailed('twilio', scrub(failures.join('; '), secrets));
    },
  };
}
