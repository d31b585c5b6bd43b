// `pagerduty://[host[:port]]/<integration key>[?…]`: an event through PagerDuty's Events API v2,
// `POST /v2/enqueue` on `events.pagerduty.com` (docs/notifications.md#services), the message as the
// summary (cut at 1024 characters). `severity=` (critical, error, warning, info; default error),
// `source=` (default `default`), `action=` (trigger, acknowledge, resolve), `dedup_key=`, `details=` (a JSON
// value), `contexts=` (`link:<url>`/`image:<url>` items or a JSON array), `client=`, `client_url=`.
// Every value is checked at start-up, not at the first send.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, jsonOf, postJson } from './http.js';
import { UrlQuery, decodePart } from './query.js';

export type PagerDutyOptions = HttpServiceOptions;

const SUMMARY_MAX = 1024;
const SEVERITIES = ['critical', 'error', 'warning', 'info'];
const ACTIONS = ['trigger', 'acknowledge', 'resolve'];

interface PagerDutyContext {
  readonly type: 'link' | 'image';
  readonly href?: string;
  readonly src?: string;
  readonly text?: string;
}

export function createPagerDutyService(options: PagerDutyOptions = {}): NotificationService {
  return httpService(['pagerduty'], options, parsePagerDuty);
}

function contextsOf(q: UrlQuery, raw: string): PagerDutyContext[] {
  const bad = () => q.bad('parameter "contexts" takes link:<url> or image:<url> items, or a JSON array of them');
  const parsed = jsonOf(raw);
  if (Array.isArray(parsed)) {
    return parsed.map((c: unknown) => {
      const ctx = c as { type?: unknown; href?: unknown; src?: unknown; text?: unknown };
      if (ctx.type === 'link' && typeof ctx.href === 'string' && ctx.href !== '') return ctx as PagerDutyContext;
      if (ctx.type === 'image' && typeof ctx.src === 'string' && ctx.src !== '') return ctx as PagerDutyContext;
      throw bad();
    });
  }
  const out: PagerDutyContext[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = item.indexOf(':');
    const type = at === -1 ? '' : item.slice(0, at).trim();
    const value = at === -1 ? '' : item.slice(at + 1).trim();
    if (type === '' || value === '') throw bad();
    if (type === 'link') out.push({ type, href: value });
    else if (type === 'image') out.push({ type, src: value });
    else if (type !== 'text') throw bad(); // shoutrrr skips `text:` items
  }
  return out;
}

function parsePagerDuty(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'pagerduty');
  const key = decodePart(url.pathname.replace(/^\//, ''));
  const host = url.hostname === '' ? 'events.pagerduty.com' : url.hostname;
  const port = url.port === '' ? 443 : Number(url.port);
  const severity = q.string('severity', 'error');
  const source = q.string('source', 'default');
  const action = q.string('action', 'trigger');
  const dedupKey = q.get('dedup_key') ?? '';
  const detailsRaw = q.get('details') ?? '';
  const contextsRaw = q.get('contexts') ?? '';
  const client = q.get('client') ?? '';
  const clientUrl = q.get('client_url') ?? '';
  q.rejectUnknown();
  if (!/^[a-fA-F0-9]{32}$/.test(key)) throw q.bad('the integration key is missing or not 32 hexadecimal characters');
  if (!SEVERITIES.includes(severity)) throw q.bad(`parameter "severity" must be one of ${SEVERITIES.join(', ')}`);
  if (!ACTIONS.includes(action)) throw q.bad(`parameter "action" must be one of ${ACTIONS.join(', ')}`);
  let details: unknown;
  if (detailsRaw !== '') {
    details = jsonOf(detailsRaw);
    if (details === undefined) throw q.bad('parameter "details" must be JSON');
  }
  const contexts = contextsRaw === '' ? [] : contextsOf(q, contextsRaw);

  const endpoint = `${base ?? `https://${host}:${port}`}/v2/enqueue`;
  const secrets = [key];
  const redacted = `pagerduty://${url.host}/REDACTED${url.search}`;

  return {
    service: 'pagerduty',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const payload = {
        payload: { summary: [...message.body].slice(0, SUMMARY_MAX).join(''), severity, source },
        routing_key: key,
        event_action: action,
        ...(dedupKey ? { dedup_key: dedupKey } : {}),
        ...(details !== undefined ? { details } : {}),
        ...(contexts.length > 0 ? { contexts } : {}),
        ...(client ? { client } : {}),
        ...(clientUrl ? { client_url: clientUrl } : {}),
      };
      await postJson('pagerduty', { url: endpoint, payload, timeoutMs }, signal, secrets);
    },
  };
}
