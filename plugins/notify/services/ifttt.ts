// `ifttt://<webhook key>/?events=<event>[,<event>…]`: one IFTTT Maker webhook trigger per event,
// `POST /trigger/<event>/with/key/<key>` on `maker.ifttt.com` with `{"value1", "value2", "value3"}`
// (docs/notifications.md#services). The message goes into the value `messagevalue=` names (1–3, default
// 2), the title into `titlevalue=`'s (0 = nowhere, the default); `value1=`…`value3=` fill the others.
// (shoutrrr 0.17 reads `titlevalue` but never sends the title; Tidewatch does.)
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, postJson } from './http.js';
import { UrlQuery, decodePart } from './query.js';

export type IftttOptions = HttpServiceOptions;

export function createIftttService(options: IftttOptions = {}): NotificationService {
  return httpService(['ifttt'], options, parseIfttt);
}

function parseIfttt(url: URL, { base: testBase, timeoutMs }: HttpServiceSettings): NotificationSender {
  const base = testBase ?? 'https://maker.ifttt.com';
  const q = new UrlQuery(url, 'ifttt');
  const key = decodePart(url.hostname);
  const events = q.list('events');
  const values = [q.get('value1') ?? '', q.get('value2') ?? '', q.get('value3') ?? ''];
  const messageValue = q.int('messagevalue', 2, 1, 3);
  const titleValue = q.int('titlevalue', 0, 0, 3);
  const configTitle = q.get('title') ?? '';
  q.rejectUnknown();
  if (key === '') throw q.bad('the URL has no webhook key (ifttt://<key>/?events=…)');
  if (events.length === 0) throw q.bad('no "events" given');
  if (titleValue !== 0 && titleValue === messageValue) throw q.bad('parameters "titlevalue" and "messagevalue" name the same value');

  const secrets = [key];
  const redacted = `ifttt://REDACTED/${url.search}`;

  return {
    service: 'ifttt',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const v = [...values];
      v[messageValue - 1] = message.body;
      if (titleValue !== 0) v[titleValue - 1] = message.title || configTitle;
      const payload = { value1: v[0], value2: v[1], value3: v[2] };
      for (const event of events) {
        const endpoint = `${base}/trigger/${encodeURIComponent(event)}/with/key/${encodeURIComponent(key)}`;
        await postJson('ifttt', { url: endpoint, payload, timeoutMs }, signal, secrets);
      }
    },
  };
}
