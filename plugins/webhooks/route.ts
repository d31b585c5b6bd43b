// `POST /v1/hooks/{receiver}` and `POST /v1/hooks/{receiver}/{token}` (docs/webhooks.md, docs/http-api.md#webhooks),
// served by the HTTP API through the core's HTTP_ROUTES. Order of the answers: unknown receiver 404, then
// authentication 401 (logged with the client IP, never what was sent), then the media type 415, then the
// payload; everything past that is 202 at once, relevant or not (a registry retries a non-2xx forever),
// unless the backlog is full (429). The path token is never logged: this file logs the receiver's name only.
import type { HttpRouteDefinition, HttpRouteRequest, HttpRouteResponse, Logger } from '../../core/index.js';
import { authenticate } from './auth.js';
import { RecentKeys } from './dedupe.js';
import type { Dispatcher } from './dispatcher.js';
import { webhookErrors } from './errors.js';
import type { Hint, ParsedPayload } from './hints.js';
import { parseGitHub } from './payload-github.js';
import { parseDistribution, parseDockerHub, parseGeneric, parseHarbor, parseQuay } from './payload-registries.js';
import type { WebhookReceiver } from './receivers.js';

/** What the API tells a route it refused before `handle` ran (a body over the limit). */
type HttpRouteRefusal = Parameters<NonNullable<HttpRouteDefinition['refused']>>[0];

export const BODY_LIMIT = 256 * 1024;
export const MEDIA_TYPES = [
  'application/json',
  'application/vnd.docker.distribution.events.v1+json',
  'application/vnd.docker.distribution.events.v2+json',
] as const;

export type WebhookResult = 'accepted' | 'duplicate' | 'ignored' | 'rejected';

export interface HookRouteDeps {
  readonly receivers: ReadonlyMap<string, WebhookReceiver>;
  readonly dispatcher: Dispatcher;
  readonly logger: Logger;
  /** One per answered request of a known receiver (the `tidewatch_webhooks_total` metric). */
  readonly count: (receiver: string, result: WebhookResult) => void;
  readonly recent?: RecentKeys;
}

function parsePayload(receiver: WebhookReceiver, body: unknown, event: string | undefined): ParsedPayload {
  switch (receiver.kind) {
    case 'distribution':
      return parseDistribution(body);
    case 'dockerhub':
      return parseDockerHub(body);
    case 'github':
      return parseGitHub(event, body);
    case 'harbor':
      return parseHarbor(body);
    case 'quay':
      return parseQuay(body);
    case 'generic':
      return parseGeneric(body);
  }
}

/** The keys a hint is known by: its event id, or the repository, tag and digest it pushed. */
function hintKeys(receiver: WebhookReceiver, hint: Hint): string[] {
  if (hint.kind === 'git') return hint.commit ? [`git:${hint.repo}:${hint.ref}:${hint.commit}`] : [];
  const keys: string[] = [];
  if (hint.eventId) keys.push(`event:${receiver.name}:${hint.eventId}`);
  if (hint.digest) keys.push(`push:${hint.repository}:${hint.tag ?? ''}:${hint.digest}`);
  return keys;
}

function error(err: { statusCode: number; message: string; code: string }, headers?: Record<string, string>): HttpRouteResponse {
  return { status: err.statusCode, error: { message: err.message, code: err.code }, ...(headers ? { headers } : {}) };
}

export function createHookHandler(deps: HookRouteDeps): (request: HttpRouteRequest) => HttpRouteResponse {
  const recent = deps.recent ?? new RecentKeys();
  const { logger } = deps;
  return (request) => {
    const receiver = deps.receivers.get(request.params['receiver'] ?? '');
    if (!receiver) {
      // The name is not logged: a sender may have put its token where the name belongs.
      logger.warn({ ip: request.ip }, 'webhook for an unknown receiver');
      return error(webhookErrors.notFound());
    }
    const failure = authenticate(receiver, {
      authorization: request.headers['authorization'],
      pathToken: request.params['token'],
      signature: request.headers['x-hub-signature-256'],
      body: request.body,
    });
    if (failure) {
      logger.warn({ receiver: receiver.name, ip: request.ip, reason: failure }, 'webhook authentication failed');
      deps.count(receiver.name, 'rejected');
      return error(webhookErrors.unauthorized());
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(MEDIA_TYPES as readonly string[]).includes(type)) {
      deps.count(receiver.name, 'rejected');
      return error(webhookErrors.mediaType(type.slice(0, 100)));
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch (err) {
      deps.count(receiver.name, 'rejected');
      return error(webhookErrors.payload((err as Error).message.slice(0, 200)));
    }
    const event = request.headers['x-github-event'];
    const parsed = parsePayload(receiver, body, event);
    if (parsed.invalid !== undefined) {
      deps.count(receiver.name, 'rejected');
      logger.warn({ receiver: receiver.name, ip: request.ip, reason: parsed.invalid }, 'webhook refused: invalid payload');
      return error(webhookErrors.invalid(parsed.invalid));
    }
    const accepted = (result: WebhookResult, hints: number): HttpRouteResponse => {
      deps.count(receiver.name, result);
      logger.info({ receiver: receiver.name, ip: request.ip, events: parsed.events, hints, result }, 'webhook received');
      return { status: 202, body: { status: 'accepted', receiver: receiver.name, events: parsed.events } };
    };
    const delivery = request.headers['x-github-delivery']?.slice(0, 128);
    if (delivery && recent.seen(`delivery:${receiver.name}:${delivery}`)) return accepted('duplicate', 0);

    const fresh: Hint[] = [];
    const marked: string[] = [];
    let duplicates = 0;
    for (const hint of parsed.hints) {
      const keys = hintKeys(receiver, hint);
      // Every key is remembered (seen() records it), so a later delivery known by another of them is caught too.
      const dup = keys.map((k) => recent.seen(k)).some(Boolean);
      if (dup) duplicates++;
      else {
        fresh.push(hint);
        marked.push(...keys);
      }
    }
    if (fresh.length > 0 && !deps.dispatcher.offer(receiver, fresh)) {
      // Not taken: the sender's retry must not be mistaken for a duplicate.
      for (const key of marked) recent.forget(key);
      if (delivery) recent.forget(`delivery:${receiver.name}:${delivery}`);
      deps.count(receiver.name, 'rejected');
      logger.warn({ receiver: receiver.name, ip: request.ip, backlog: deps.dispatcher.backlog }, 'webhook refused: backlog full');
      return error(webhookErrors.backlog(deps.dispatcher.backlog), { 'retry-after': '5' });
    }
    if (fresh.length > 0) return accepted('accepted', fresh.length);
    return accepted(duplicates > 0 ? 'duplicate' : 'ignored', 0);
  };
}

const errorSchema = (description: string) => ({
  description,
  type: 'object',
  required: ['error', 'code', 'api_version', 'timestamp'],
  properties: {
    error: { type: 'string' },
    code: { type: 'string', description: 'Stable error code, listed in docs/errors.md' },
    api_version: { type: 'string', enum: ['v1'] },
    timestamp: { type: 'string', format: 'date-time' },
  },
});

function schema(withToken: boolean): Record<string, unknown> {
  return {
    summary: withToken ? 'Receive a webhook (token in the path)' : 'Receive a webhook',
    description:
      'A registry or Git host says something was pushed: a hint Tidewatch re-checks itself before a targeted check or update ' +
      'of the containers on that repository. Authenticated by the receiver\'s own token (Authorization: Bearer, or ' +
      (withToken ? 'this path segment' : 'the path form') + ') or its HMAC secret (X-Hub-Signature-256). See docs/webhooks.md.',
    tags: ['webhooks'],
    consumes: [...MEDIA_TYPES],
    security: withToken ? [] : [{ WebhookToken: [] }],
    params: {
      type: 'object',
      required: withToken ? ['receiver', 'token'] : ['receiver'],
      properties: {
        receiver: { type: 'string', description: 'Receiver name (--webhook NAME=KIND,…)' },
        ...(withToken ? { token: { type: 'string', description: "The receiver's token, for senders that cannot set headers" } } : {}),
      },
    },
    response: {
      202: {
        description: 'Accepted, including events that turn out irrelevant',
        type: 'object',
        required: ['status', 'receiver', 'events', 'api_version', 'timestamp'],
        properties: {
          status: { type: 'string', enum: ['accepted'] },
          receiver: { type: 'string' },
          events: { type: 'integer', description: 'Events the payload held' },
          api_version: { type: 'string', enum: ['v1'] },
          timestamp: { type: 'string', format: 'date-time' },
        },
      },
      400: errorSchema('The body is not JSON, or not of the receiver\'s shape (a generic body without repository)'),
      401: errorSchema('Missing or invalid token or signature'),
      404: errorSchema('Unknown receiver'),
      413: errorSchema('Body above 256 KiB'),
      415: errorSchema('Content type other than JSON or Distribution events'),
      429: errorSchema('Too many requests from this IP (empty body), or the webhook backlog is full'),
      500: errorSchema('Internal error'),
    },
  };
}

/**
 * The refusals the API answers before the handler (413, a body above 256 KiB) count as `rejected` for a known
 * receiver, like the handler's own; an unknown name makes no series (a sender cannot grow the metric).
 */
export function countRefused(deps: Pick<HookRouteDeps, 'receivers' | 'count'>): (refusal: HttpRouteRefusal) => void {
  return ({ params }) => {
    const receiver = deps.receivers.get(params['receiver'] ?? '');
    if (receiver) deps.count(receiver.name, 'rejected');
  };
}

export function hookRoutes(
  handle: (request: HttpRouteRequest) => HttpRouteResponse,
  refused?: (refusal: HttpRouteRefusal) => void,
): HttpRouteDefinition[] {
  return [false, true].map((withToken) => ({
    endpoint: 'hooks',
    method: 'POST' as const,
    url: withToken ? '/v1/hooks/:receiver/:token' : '/v1/hooks/:receiver',
    bodyLimit: BODY_LIMIT,
    schema: schema(withToken),
    handle,
    ...(refused ? { refused } : {}),
  }));
}
