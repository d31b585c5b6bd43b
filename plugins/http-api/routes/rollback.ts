// POST /v1/rollback and POST /v1/release (docs/http-api.md#post-v1rollbackcontainername, docs/state.md#rollback-on-demand),
// both under the endpoint name `rollback`. A rollback is a targeted update run (it waits for the update lock)
// that puts the container back on the image it ran before its last update, through the runtime's one safe
// replacement: 200 with the update result plus `container`, `from` and `to`; 404 when no previous image is
// known, 409 when it is no longer present locally. Release lifts the hold a rollback leaves.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { formatGoDuration, type UpdateReport } from '../../../core/index.js';
import { ROLLBACKS, type ContainerKey } from '../../../contracts/index.js';
import { MAIN_SECURITY, type RouteContext, requireAccess } from '../context.js';
import { actorOf, principalOf } from '../guards/access.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { resolveContainerKey } from '../container-key.js';
import { httpErrors } from '../errors.js';
import { imageSchema } from './audit.js';
import { parseTimeout, querySingle, type Query } from '../query.js';
import { summarySchema } from './update.js';
import { RunDeadline } from '../run-deadline.js';


const containerProperties = {
  container: { type: 'string', minLength: 1, description: 'Exact container name' },
  host: { type: 'string', description: 'The engine, as configured with --host (with several engines)' },
} as const;
const containerQuery = { type: 'object', required: ['container'], properties: containerProperties } as const;
const rollbackQuery = {
  type: 'object',
  required: ['container'],
  properties: {
    ...containerProperties,
    restore: { type: 'string', enum: ['volumes'], description: "volumes: put the volumes back from the snapshot taken before the update (docs/snapshots.md)" },
  },
} as const;

function keyOf(query: Query): ContainerKey {
  const name = querySingle(query, 'container');
  if (!name) throw httpErrors.badQuery('container', 'a container name is required');
  const host = querySingle(query, 'host');
  return { name, ...(host ? { host } : {}) };
}

const MONITOR_ONLY = 'monitor-only: Tidewatch only reports this container (--monitor-only or its monitor-only label), nothing was changed';

/**
 * Why the rollback run left the container as it was, when a gate did: one that defers says why in the
 * report; one that only reports (monitor-only) leaves a stale check with no result. Never a 200 then.
 */
function refusalOf(report: UpdateReport, name: string): string | undefined {
  const skipped = report.skipped.find((s) => s.target.name === name);
  if (skipped) return skipped.reason === 'monitor-only' ? MONITOR_ONLY : skipped.reason;
  const check = report.checks.find((c) => c.target.name === name);
  const acted = report.results.some((r) => r.target.name === name);
  return check?.staleness.stale && !check.staleness.error && !acted ? MONITOR_ONLY : undefined;
}

export function rollbackRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core, options } = ctx;
  const guard = requireAccess(ctx);
  return async (app) => {
    app.post(
      '/v1/rollback',
      {
        onRequest: guard.hook,
        config: { role: 'operator' },
        schema: {
          summary: 'Roll a container back',
          description:
            'Puts the container back on the image it ran before its last update, as a targeted update (waits for a ' +
            'running update). If that image fails to start, the current container stays. The container is then held.',
          tags: ['updates'],
          security: MAIN_SECURITY,
          querystring: rollbackQuery,
          response: {
            200: {
              description: 'The rollback run completed (summary.failed says whether the previous image failed to start)',
              type: 'object',
              required: ['summary', 'container', 'from', 'to', 'api_version', 'timestamp'],
              properties: {
                summary: summarySchema,
                timing: {
                  type: 'object',
                  properties: { duration_ms: { type: 'integer' }, duration: { type: 'string' } },
                },
                container: { type: 'string' },
                from: imageSchema,
                to: imageSchema,
                note: { type: 'string', description: 'A sentence about the result, e.g. whether the Compose file was rewritten back' },
                snapshot: {
                  type: 'object',
                  description: 'With restore=volumes: the snapshot the volumes were put back from',
                  properties: { id: { type: 'string' }, volumes: { type: 'array', items: { type: 'string' } }, restored: { type: 'boolean' } },
                },
                ...envelopeProperties,
              },
            },
            400: errorResponse('No container named, or the name is on several engines and no host= was given'),
            401: errorResponse('Missing or invalid token'),
            404: errorResponse('No such container, no previous image is known for it, or (restore=volumes) no snapshot was taken before its update'),
            409: errorResponse('The previous image is no longer present locally, or the run refused the rollback (monitor-only)'),
            503: errorResponse('Timed out waiting for the update lock'),
          },
        },
      },
      async (request, reply) => {
        const key = await resolveContainerKey(core, keyOf(request.query as Query));
        const rollbacks = core.services.get(ROLLBACKS);
        if (!rollbacks) throw httpErrors.noPreviousImage(key.name);
        const begun = process.hrtime.bigint();
        const deadline = new RunDeadline('update', parseTimeout(undefined, options.updateTimeoutMs), reply);
        // Once asked, a rollback goes on if the client leaves; the update timeout still cancels a wait for the lock.
        deadline.detachClient();
        try {
          // Its run is named as a rollback in history, events and audit (`trigger: rollback`), as an approval's is.
          const restore = querySingle(request.query as Query, 'restore') === 'volumes' ? { restore: 'volumes' as const } : {};
          const outcome = await deadline.race(
            rollbacks.rollback(key, { trigger: 'rollback', ...actorOf(request), signal: deadline.signal, runId: randomUUID(), ...restore }),
          );
          if (outcome.status === 'unknown') throw httpErrors.noPreviousImage(key.name);
          if (outcome.status === 'no_snapshot') throw httpErrors.noSnapshot(key.name);
          if (outcome.status === 'gone') throw httpErrors.previousImageGone(key.name, outcome.previous.imageId);
          const refused = refusalOf(outcome.report, key.name);
          if (refused) throw httpErrors.rollbackRefused(key.name, refused);
          const ns = process.hrtime.bigint() - begun;
          const result = outcome.report.results.find((r) => r.target.name === key.name);
          const note = result?.note;
          return envelope({
            summary: outcome.report.summary,
            timing: { duration_ms: Number(ns / 1_000_000n), duration: formatGoDuration(Number(ns) / 1e6) },
            container: key.name,
            from: outcome.from,
            to: outcome.to,
            ...(note ? { note } : {}),
            ...(result?.snapshot ? { snapshot: result.snapshot } : {}),
          });
        } finally {
          deadline.dispose();
        }
      },
    );

    app.post(
      '/v1/release',
      {
        onRequest: guard.hook,
        config: { role: 'operator' },
        schema: {
          summary: 'Release a held container',
          description:
            'Lifts the hold a rollback left and forgets a failed candidate that is not retried: the next update run may ' +
            'apply the newest image again.',
          tags: ['updates'],
          security: MAIN_SECURITY,
          querystring: containerQuery,
          response: {
            200: {
              description: 'Released (released: false when it was neither held nor had a failed candidate)',
              type: 'object',
              required: ['container', 'released', 'api_version', 'timestamp'],
              properties: { container: { type: 'string' }, released: { type: 'boolean' }, ...envelopeProperties },
            },
            400: errorResponse('No container named, or the name is on several engines and no host= was given'),
            401: errorResponse('Missing or invalid token'),
            404: errorResponse('No such container'),
          },
        },
      },
      async (request) => {
        const key = await resolveContainerKey(core, keyOf(request.query as Query));
        const released = (await core.services.get(ROLLBACKS)?.release(key, principalOf(request)?.actor)) ?? false;
        return envelope({ container: key.name, released });
      },
    );
  };
}
