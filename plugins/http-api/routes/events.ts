// GET /v1/events (docs/http-api-contract.md §4.3, docs/interface.md §6) on @fastify/sse: the plugin owns the response head and
// the connection's lifecycle, the EventHub owns framing and fan-out. The route uses the plugin's
// `manual` kind (no Accept negotiation: curl and EventSource both get the stream) and turns its
// heartbeat off, because docs/interface.md fixes our own `: ping` every 15 s, sent by the hub to all.
import { TidewatchError } from '../../../core/index.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { RouteContext } from '../context.js';
import { EVENTS_SECURITY } from '../context.js';
import { errorResponse } from '../envelope.js';
import { httpErrors } from '../errors.js';
import type { EventHub } from '../event-hub.js';
import { querySingle, type Query } from '../query.js';

/** `Last-Event-ID` header, else `last_event_id` query (EventSource reconnects cannot set headers). */
function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? querySingle(request.query as Query, 'last_event_id');
  if (raw === undefined || !/^\d{1,15}$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** Same-origin, `null`, or allowed by --http-api-cors-origins (docs/interface.md §6). */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || origin === 'null') return true;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

export function eventRoutes(ctx: RouteContext, hub: EventHub): FastifyPluginAsync {
  const { options, proxies } = ctx;
  const guard = ctx.eventsGuard;
  if (!guard) throw new TidewatchError('TW_ERR_INTERNAL', 'the events endpoint needs an events token', 500);
  return async (app) => {
    app.get(
      '/v1/events',
      {
        onRequest: guard.hook,
        sse: { kind: 'manual', heartbeat: false },
        schema: {
          summary: 'Event stream',
          description:
            'Server-Sent Events: scan_started, scan_completed, scan_failed, image_cleanup, update_started, update_completed, ' +
            'update_failed, update_skipped. Each frame has id, event and a one-line JSON data {type, timestamp, data}. The stream never ' +
            'ends, so this page cannot show it: use EventSource or curl -N.',
          tags: ['events'],
          security: EVENTS_SECURITY,
          produces: ['text/event-stream'],
          querystring: {
            type: 'object',
            properties: {
              access_token: { type: 'string', description: 'Events token, for clients that cannot set headers (EventSource)' },
              last_event_id: { type: 'string', description: 'Replay the buffered events after this id (as the Last-Event-ID header)' },
            },
          },
          response: {
            200: { description: 'Stream established', type: 'string' },
            401: errorResponse('Missing or invalid events token'),
            403: errorResponse('Origin not allowed'),
            503: errorResponse('Too many subscribers'),
          },
        },
      },
      async (request, reply) => {
        const origin = request.headers.origin;
        if (!originAllowed(origin, proxies.host(request), options.corsOrigins)) {
          throw httpErrors.originForbidden(origin ?? '');
        }
        if (hub.size >= options.eventsMaxSubscribers) throw httpErrors.subscribersFull(options.eventsMaxSubscribers);
        // HEAD (fastify adds it to every GET) gets the stream's head at once and never a subscriber slot:
        // the stream's headers would only go out with a body write, which Node drops for HEAD
        // (docs/http-api.md#event-stream).
        if (request.method === 'HEAD') {
          return reply.code(200).header('content-type', 'text/event-stream').header('cache-control', 'no-cache').send();
        }
        const sse = reply.sse;
        if (!sse) throw new TidewatchError('TW_ERR_INTERNAL', '@fastify/sse did not decorate the reply', 500);
        sse.keepAlive();
        sse.sendHeaders(200);
        const unsubscribe = hub.subscribe(reply.raw, lastEventId(request));
        sse.onClose(unsubscribe);
      },
    );
  };
}
