// Health probes (docs/interface.md §4): GET and HEAD, no authentication, served whenever the API runs.
// They are rate limited like every route (docs/http-api-contract.md §8.1), which a probe every few seconds never reaches.
import type { FastifyPluginAsync } from 'fastify';
import { errorMessage } from '../../../core/index.js';
import type { RouteContext } from '../context.js';
import { envelope, envelopeProperties } from '../envelope.js';

const READY_TIMEOUT_MS = 5000;

const okSchema = {
  description: 'Healthy',
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'] }, ...envelopeProperties },
} as const;

const unavailableSchema = {
  description: 'Not healthy (yet)',
  type: 'object',
  required: ['status', 'error'],
  properties: { status: { type: 'string', enum: ['unavailable'] }, error: { type: 'string' }, ...envelopeProperties },
} as const;

const schema = (summary: string, description: string, withUnavailable: boolean) => ({
  summary,
  description,
  tags: ['health'],
  response: withUnavailable ? { 200: okSchema, 503: unavailableSchema } : { 200: okSchema },
});

export function healthRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  return async (app) => {
    app.get('/livez', { schema: schema('Liveness', 'The process answers.', false) }, async () => envelope({ status: 'ok' }));

    app.get(
      '/startupz',
      { schema: schema('Startup', 'Plugins are loaded and the first discovery succeeded.', true) },
      async (_request, reply) => {
        if (core.health.started) return envelope({ status: 'ok' });
        return reply.code(503).send(envelope({ status: 'unavailable', error: 'starting: the first discovery has not succeeded yet' }));
      },
    );

    app.get(
      '/readyz',
      { schema: schema('Readiness', 'The container engine answered a ping within 5 s (or a call in the last 2 s).', true) },
      async (_request, reply) => {
        try {
          await core.health.ready(READY_TIMEOUT_MS);
          return envelope({ status: 'ok' });
        } catch (err) {
          return reply.code(503).send(envelope({ status: 'unavailable', error: errorMessage(err) }));
        }
      },
    );
  };
}
