// `smtp://[user:password@]<host>[:port]/?fromaddress=…&toaddresses=…`: an e-mail through an SMTP server
// (docs/notifications.md#services), sent with nodemailer. Port 25 by default; TLS on connect at port 465
// or with `encryption=ImplicitTLS`, STARTTLS when the server offers it unless `usestarttls=no`.
import { createTransport } from 'nodemailer';
import { parseGoDuration } from '../../../core/index.js';
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { notificationFailed, scrub } from './http.js';
import { UrlQuery, redactUrl, userinfo } from './query.js';

const AUTH = ['None', 'Plain', 'CRAMMD5', 'Unknown', 'OAuth2', 'Login'] as const;
const ENCRYPTION = ['None', 'ExplicitTLS', 'ImplicitTLS', 'Auto'] as const;

function pick<T extends string>(q: UrlQuery, key: string, values: readonly T[], fallback: T): T {
  const v = q.get(key);
  if (v === undefined || v === '') return fallback;
  const hit = values.find((x) => x.toLowerCase() === v.trim().toLowerCase());
  if (hit === undefined) throw q.bad(`parameter "${key}" must be one of ${values.join(', ')}`);
  return hit;
}

export function createSmtpService(): NotificationService {
  return { schemes: ['smtp'], parse: parseSmtp };
}

function parseSmtp(url: URL): NotificationSender {
  const q = new UrlQuery(url, 'smtp');
  const host = url.hostname;
  if (host === '') throw q.bad('the URL names no server');
  const port = url.port === '' ? 25 : Number(url.port);
  const { user, password } = userinfo(url);
  // A `+` in a query is a space; in an address it was meant as `+` (a sub-address tag).
  const from = (q.get('fromaddress', 'from') ?? '').replace(/ /g, '+');
  const fromName = q.get('fromname') ?? '';
  const to = q.list(['toaddresses', 'to']).map((a) => a.replace(/ /g, '+'));
  const subjectParam = q.get('subject', 'title');
  const subject = subjectParam ?? 'Shoutrrr Notification';
  const auth = pick(q, 'auth', AUTH, 'Unknown');
  const encryption = pick(q, 'encryption', ENCRYPTION, 'Auto');
  const useStartTls = q.bool(['usestarttls', 'starttls'], true);
  const useHtml = q.bool('usehtml', false);
  const clientHost = q.string('clienthost', 'localhost') || 'localhost';
  const requireStartTls = q.bool('requirestarttls', false);
  const skipVerify = q.bool('skiptlsverify', false);
  const timeoutRaw = q.get('timeout');
  const timeoutMs = timeoutRaw === undefined || timeoutRaw === '' ? 10_000 : goDuration(timeoutRaw);
  if (timeoutMs === undefined || timeoutMs <= 0) throw q.bad('parameter "timeout" must be a duration like 10s');
  q.rejectUnknown();
  if (from === '') throw q.bad('no sender (fromaddress=…)');
  if (to.length === 0) throw q.bad('no recipients (toaddresses=…)');

  const implicitTls = encryption === 'ImplicitTLS' || (encryption === 'Auto' && port === 465);
  const noTls = encryption === 'None' || !useStartTls;
  const credentials = auth === 'None' || (user === '' && (password ?? '') === '') ? undefined : authFor(auth, user, password ?? '');
  const secrets = [password ?? ''];
  const redacted = redactUrl(url, { password: true });

  return {
    service: 'smtp',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const transport = createTransport({
        host,
        port,
        secure: implicitTls,
        ignoreTLS: !implicitTls && noTls,
        requireTLS: !implicitTls && !noTls && requireStartTls,
        name: clientHost,
        ...(credentials ? { auth: credentials } : {}),
        tls: { rejectUnauthorized: !skipVerify },
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      });
      const onAbort = () => transport.close();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        if (signal.aborted) throw new Error('cancelled');
        await transport.sendMail({
          from: fromName ? { name: fromName, address: from } : from,
          to,
          subject: message.title || subject,
          ...(useHtml ? { html: message.body } : { text: message.body }),
        });
      } catch (err) {
        const why = signal.aborted ? 'cancelled' : describe(err);
        throw notificationFailed('smtp', scrub(`sending through ${host}:${port} failed: ${why}`, secrets));
      } finally {
        signal.removeEventListener('abort', onAbort);
        transport.close();
      }
    },
  };
}

function authFor(auth: (typeof AUTH)[number], user: string, pass: string) {
  switch (auth) {
    case 'OAuth2':
      return { type: 'OAuth2' as const, user, accessToken: pass };
    case 'Plain':
      return { user, pass, method: 'PLAIN' };
    case 'Login':
      return { user, pass, method: 'LOGIN' };
    case 'CRAMMD5':
      return { user, pass, method: 'CRAM-MD5' };
    default:
      return { user, pass };
  }
}

/** nodemailer's error without the server's echo of a credential: its code and its first line. */
function describe(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; message?: unknown };
  const first = typeof e.message === 'string' ? e.message.split('\n')[0]! : String(err);
  return [typeof e.code === 'string' ? e.code : '', typeof e.responseCode === 'number' ? String(e.responseCode) : '', first]
    .filter((s) => s !== '')
    .join(' ');
}

function goDuration(text: string): number | undefined {
  try {
    return parseGoDuration(text);
  } catch {
    return undefined;
  }
}
