// `pushbullet://<access token>[/<target>[/<target>…]]`: a note pushed through Pushbullet's
// `POST /v2/pushes` with the `Access-Token` header (docs/notifications.md#services), once per target: a
// target with an `@` is an e-mail address, `#name` a channel tag, anything else a device id; no target
// pushes to all of the account's devices. The title defaults to `Shoutrrr notification`, as in shoutrrr.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, jsonOf, notificationFailed, postJson, scrub } from './http.js';
import { UrlQuery, decodePart, pathSegments } from './query.js';

export type PushbulletOptions = HttpServiceOptions;

const TOKEN_LENGTH = 34;
const DEFAULT_TITLE = 'Shoutrrr notification';

export function createPushbulletService(options: PushbulletOptions = {}): NotificationService {
  return httpService(['pushbullet'], options, parsePushbullet);
}

/** Where one push goes: exactly one of the three target fields is set (all three are always sent). */
export function pushbulletTarget(target: string): { email: string; channel_tag: string; device_iden: string } {
  if (/.*@.*\..*/.test(target)) return { email: target, channel_tag: '', device_iden: '' };
  if (target.startsWith('#')) return { email: '', channel_tag: target.slice(1), device_iden: '' };
  return { email: '', channel_tag: '', device_iden: target };
}

function parsePushbullet(url: URL, { base: testBase, timeoutMs }: HttpServiceSettings): NotificationSender {
  const base = testBase ?? 'https://api.pushbullet.com';
  const q = new UrlQuery(url, 'pushbullet');
  const token = decodePart(url.hostname);
  const configTitle = q.string('title', DEFAULT_TITLE);
  q.rejectUnknown();
  if (token.length !== TOKEN_LENGTH) throw q.bad(`the access token is missing or not ${TOKEN_LENGTH} characters long`);
  const segments = pathSegments(url);
  const targets = segments.length > 0 ? segments : [''];

  const secrets = [token];
  const redacted = `pushbullet://REDACTED${url.pathname === '/' ? '' : url.pathname}${url.search}`;

  return {
    service: 'pushbullet',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const title = message.title || configTitle;
      for (const target of targets) {
        const payload = { type: 'note', title, body: message.body, ...pushbulletTarget(target) };
        const answer = await postJson(
          'pushbullet',
          { url: `${base}/v2/pushes`, payload, headers: { 'Access-Token': token }, timeoutMs },
          signal,
          secrets,
        );
        // Shoutrrr checks the echo: a push that is not an active note was not delivered as asked.
        const push = jsonOf(answer.body) as { type?: unknown; active?: unknown } | undefined;
        if (push?.type !== 'note' || push.active === false) {
          throw notificationFailed('pushbullet', scrub('the API did not answer with an active note', secrets));
        }
      }
    },
  };
}
