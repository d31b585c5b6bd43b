// POST /v1/update (docs/http-api-contract.md §4.1, docs/interface.md §4–5). Concurrency is the core's: a full run try-locks and
// the core refuses it with TW_ERR_BUSY (429, Retry-After: 30, never waits); a targeted run waits for
// the lock. Until the run has started, a client that hangs up cancels it (503); after, only the
// timeout does, and the core honours that between containers, never in the middle of one.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { errorMessage, errors, formatGoDuration, isTargeted, isTidewatchError, type UpdateReport } from '../../../core/index.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse, sendError } from '../envelope.js';
import { filterQuerySchema, parseAsync, parseTimeout, runFilters, timeoutQuerySchema, type Query } from '../query.js';
import { compileContainerPatterns } from '../pattern-filters.js';
import { RunDeadline } from '../run-deadline.js';
import type { RunStarts } from '../run-starts.js';

export const RETRY_AFTER_BUSY_SECONDS = 30;

const count = { type: 'integer', minimum: 0 } as const;

export const summarySchema = {
  type: 'object',
  required: ['scanned', 'updated', 'failed', 'restarted', 'skipped'],
  properties: {
    scanned: { ...count, description: 'Containers scanned for updates (skipped ones excluded)' },
    updated: { ...count, description: 'Containers successfully updated' },
    failed: { ...count, description: 'Containers whose update failed' },
    restarted: { ...count, description: 'Containers restarted because of linked dependencies' },
    skipped: { ...count, description: 'Containers skipped during the update' },
  },
} as const;

const schema = (maximum: string) => ({
  summary: 'Update containers',
  description:
    'Runs an update: with neither image nor container a full update (refused with 429 while another update runs), ' +
    'otherwise a targeted one (waits for the running update to finish).',
  tags: ['updates'],
  security: MAIN_SECURITY,
  querystring: {
    type: 'object',
    properties: {
      ...filterQuerySchema,
      timeout: timeoutQuerySchema(maximum),
      async: { type: 'string', enum: ['true', 'false', '1', '0'], description: 'Run in the background and answer 202 at once' },
    },
  },
  response: {
    200: {
      description: 'Synchronous update completed',
      type: 'object',
      required: ['summary', 'timing', 'api_version', 'timestamp'],
      properties: {
        summary: summarySchema,
        skipped: {
          type: 'array',
          description: 'Stale containers a gate deferred (a hold, a cooldown…), each with the reason; absent when none',
          items: {
            type: 'object',
            required: ['container', 'reason'],
            properties: { container: { type: 'string' }, host: { type: 'string' }, reason: { type: 'string' } },
          },
        },
        timing: {
          type: 'object',
          required: ['duration_ms', 'duration'],
          properties: {
            duration_ms: { type: 'integer', description: 'Execution time in milliseconds' },
            duration: { type: 'string', description: "Execution time as Go's Duration.String()" },
          },
        },
        ...envelopeProperties,
      },
    },
    202: {
      description: 'Update started in the background; its events carry run_id',
      type: 'object',
      required: ['status', 'run_id', 'targeted', 'api_version', 'timestamp'],
      properties: {
        status: { type: 'string', enum: ['accepted'] },
        run_id: { type: 'string', format: 'uuid' },
        targeted: { type: 'boolean' },
        ...envelopeProperties,
      },
    },
    400: errorResponse('Bad query value'),
    401: errorResponse('Missing or invalid token'),
    413: errorResponse('Request body above 1 MiB'),
    429: {
      ...errorResponse('A full update was requested while another update runs (per-IP rate limiting answers 429 too, with no body)'),
      headers: { 'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying' } },
    },
    500: errorResponse('Internal error'),
    503: errorResponse('Timed out, or the client went away while the update waited for the lock'),
  },
});

function sendBusy(reply: FastifyReply, err: Error): FastifyReply {
  reply.header('Retry-After', String(RETRY_AFTER_BUSY_SECONDS));
  return sendError(reply, 429, err.message, errors.busy.code);
}

export function updateRoutes(ctx: RouteContext, starts: RunStarts): FastifyPluginAsync {
  const { core, options } = ctx;
  const guard = requireMainGuard(ctx);
  const logger = core.logger.child({ plugin: 'http-api' });
  return async (app) => {
    app.post('/v1/update', { onRequest: guard.hook, schema: schema(formatGoDuration(options.updateTimeoutMs)) }, async (request, reply) => {
      const query = request.query as Query;
      const filters = runFilters(query);
      const background = parseAsync(query);
      const timeout = parseTimeout(query, options.updateTimeoutMs);
      await compileContainerPatterns(filters);
      const runId = randomUUID();
      const begun = process.hrtime.bigint();
      const deadline = new RunDeadline('update', timeout, reply);
      const started = starts.wait(runId);
      const run: Promise<UpdateReport> = core.update({ filters, signal: deadline.signal, runId, trigger: 'api' });
      let detached = false;
      try {
        // Phase 1: until the lock is held and the run has begun, a hang-up or the timeout cancels it.
        await deadline.race(Promise.race([started, run]));
        deadline.detachClient();
        if (background) {
          detached = true;
          run
            .catch((err: unknown) => logger.warn({ run_id: runId, err: errorMessage(err) }, 'background update ended with an error'))
            .finally(() => deadline.dispose());
          return reply.code(202).send(envelope({ status: 'accepted', run_id: runId, targeted: isTargeted(filters) }));
        }
        // Phase 2: the response is held until the run ends or the timeout cancels it.
        const report = await deadline.race(run);
        const ns = process.hrtime.bigint() - begun;
        const skipped = report.skipped.map(({ target, reason }) => ({
          container: target.name,
          ...(target.host ? { host: target.host } : {}),
          reason,
        }));
        return envelope({
          summary: report.summary,
          ...(skipped.length > 0 ? { skipped } : {}),
          timing: { duration_ms: Number(ns / 1_000_000n), duration: formatGoDuration(Number(ns) / 1e6) },
        });
      } catch (err) {
        if (isTidewatchError(err, errors.busy)) return sendBusy(reply, err);
        throw err;
      } finally {
        starts.cancel(runId);
        // An abandoned run (timeout, hang-up) still settles later; the core logs and records it.
        run.catch(() => undefined);
        if (!detached) deadline.dispose();
      }
    });
  };
}
