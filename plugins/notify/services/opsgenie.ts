// `opsgenie://host[:port]/<API key>[?…]`: an alert through OpsGenie's `POST /v2/alerts` with
// `Authorization: GenieKey <key>` (docs/notifications.md#services); `api.opsgenie.com`, or
// `api.eu.opsgenie.com` for the EU. The title is the alert's message and the text its description; with
// no title, a text of up to 130 characters is the message itself, a longer one is cut for the message
// and sent whole as the description. Lists are comma-separated; a responder is `<type>:<id or name>`.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, postJson } from './http.js';
import { UrlQuery, decodePart } from './query.js';

export type OpsGenieOptions = HttpServiceOptions;

/** OpsGenie's limit on an alert's message. */
const MESSAGE_MAX = 130;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Entity {
  readonly type: string;
  readonly id?: string;
  readonly name?: string;
  readonly username?: string;
}

export function createOpsGenieService(options: OpsGenieOptions = {}): NotificationService {
  return httpService(['opsgenie'], options, parseOpsGenie);
}

/** `team:<uuid or name>`, `user:<uuid or user name>`, `escalation:<uuid>`, `schedule:<uuid>`, as shoutrrr reads them. */
function entity(q: UrlQuery, key: string, text: string): Entity {
  const parts = text.split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') throw q.bad(`parameter "${key}" takes <type>:<id or name> items`);
  const [type, identifier] = parts as [string, string];
  if (UUID.test(identifier)) return { type, id: identifier };
  if (type === 'team') return { type, name: identifier };
  if (type === 'user') return { type, username: identifier };
  throw q.bad(`parameter "${key}": ${type} entries take an id`);
}

function parseOpsGenie(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'opsgenie');
  const apiKey = decodePart(url.pathname.replace(/^\//, ''));
  const port = url.port === '' ? 443 : Number(url.port);
  const fields: Record<string, unknown> = {};
  for (const key of ['alias', 'entity', 'source', 'user', 'note'] as const) {
    const v = q.get(key) ?? '';
    if (v !== '') fields[key] = v;
  }
  const description = q.get('description') ?? '';
  const priority = q.get('priority') ?? '';
  if (priority !== '' && !/^P[1-5]$/.test(priority)) throw q.bad('parameter "priority" must be one of P1, P2, P3, P4, P5');
  if (priority !== '') fields.priority = priority;
  for (const key of ['actions', 'tags'] as const) {
    const list = q.list(key);
    if (list.length > 0) fields[key] = list;
  }
  for (const key of ['responders', 'visibleTo'] as const) {
    const list = q.list(key).map((item) => entity(q, key, item));
    if (list.length > 0) fields[key] = list;
  }
  const detailItems = q.list('details');
  if (detailItems.length > 0) {
    const details: Record<string, string> = {};
    for (const item of detailItems) {
      const pair = item.split(':');
      if (pair.length !== 2) throw q.bad('parameter "details" takes key:value items');
      details[pair[0]!] = pair[1]!;
    }
    fields.details = details;
  }
  const configTitle = q.get('title') ?? '';
  q.rejectUnknown();
  if (url.hostname === '') throw q.bad('the URL names no host (api.opsgenie.com or api.eu.opsgenie.com)');
  if (apiKey === '') throw q.bad('the URL has no API key (opsgenie://host/<API key>)');

  const endpoint = `${base ?? `https://${url.hostname}:${port}`}/v2/alerts`;
  const secrets = [apiKey];
  const redacted = `opsgenie://${url.host}/REDACTED${url.search}`;

  return {
    service: 'opsgenie',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      let title = message.title || configTitle;
      let text = message.body;
      if (title === '') {
        const chars = [...message.body];
        title = chars.slice(0, MESSAGE_MAX).join('');
        if (chars.length <= MESSAGE_MAX) text = '';
      }
      const full = [text, description].filter((s) => s !== '').join('\n');
      const payload = { message: title, ...(full === '' ? {} : { description: full }), ...fields };
      await postJson('opsgenie', { url: endpoint, payload, headers: { Authorization: `GenieKey ${apiKey}` }, timeoutMs }, signal, secrets);
    },
  };
}
