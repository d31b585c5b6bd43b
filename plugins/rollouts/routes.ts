// /v1/rollouts (docs/http-api.md#rollouts), endpoint name `rollouts`: the staged rollouts in pages (viewer),
// and a person's release of a halted one (operator). Contributed on the HTTP API's registration point: the API
// authenticates the caller, checks the role, limits the rate and the body size before a handler runs.
import { TidewatchError, httpRoutes, type HttpRouteRequest, type HttpRouteResponse, type TidewatchCore } from '../../core/index.js';
import type { RolloutLedger } from './ledger.js';
import { hostsOf, type Rollout } from './machine.js';

const ENDPOINT = 'rollouts';
/** No route here takes a body. */
const BODY_LIMIT = 1_024;
const PAGE_DEFAULT = 100;
const PAGE_MAX = 1000;
const ID = /^[0-9a-f]{16}$/;

export interface RolloutActions {
  readonly ledger: RolloutLedger;
  /** Lifts the halt; undefined for an unknown id, a string saying why for a rollout that is not halted. */
  release(id: string, by: string): Rollout | string | undefined;
}

function badQuery(name: string, why: string): HttpRouteResponse {
  return { status: 400, error: { message: `invalid '${name}' parameter: ${why}`, code: 'TW_ERR_HTTP_BAD_QUERY' } };
}

/** A rollout as the API shows it (decisions §19): each stage with its hosts, state and containers. */
export function rolloutJson(rollout: Rollout): Record<string, unknown> {
  return {
    id: rollout.id,
    image: rollout.image,
    digest: rollout.digest,
    stages: rollout.stages.map((s) => ({
      stage: s.stage,
      hosts: hostsOf(s),
      state: s.state,
      containers: s.members.map((m) => ({ host: m.host, container: m.container, state: m.state, ...(m.at ? { at: m.at } : {}), ...(m.error ? { error: m.error } : {}) })),
      ...(s.soak_until ? { soak_until: s.soak_until } : {}),
    })),
    state: rollout.state,
    started_at: rollout.started_at,
    updated_at: rollout.updated_at,
    ...(rollout.halted ? { halted: rollout.halted, reason: `rollout halted: ${rollout.halted.host} failed` } : {}),
    ...(rollout.released ? { released: rollout.released } : {}),
    ...(rollout.superseded_by ? { superseded_by: rollout.superseded_by } : {}),
  };
}

function list(actions: RolloutActions, request: HttpRouteRequest): HttpRouteResponse {
  const raw = request.query.limit;
  let limit = PAGE_DEFAULT;
  if (raw !== undefined) {
    if (!/^\d{1,9}$/.test(raw)) return badQuery('limit', `expected a non-negative integer, got ${JSON.stringify(raw.slice(0, 32))}`);
    limit = Number(raw);
    if (limit > PAGE_MAX) return badQuery('limit', `at most ${PAGE_MAX}, got ${limit}`);
  }
  const cursor = request.query.cursor;
  if (cursor === '') return badQuery('cursor', 'empty value');
  // The store's cursors are short base64url words: anything else is not one it gave.
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return badQuery('cursor', 'not one this server gave');
  if (limit === 0) return { status: 200, body: { rollouts: [], count: 0 } };
  const page = actions.ledger.page({ limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, body: { rollouts: page.entries.map(rolloutJson), count: page.entries.length, ...(page.next ? { next: page.next } : {}) } };
}

function release(actions: RolloutActions, request: HttpRouteRequest): HttpRouteResponse {
  const id = request.params.id ?? '';
  if (!ID.test(id)) return { status: 404, error: { message: `no rollout ${JSON.stringify(id.slice(0, 64))}`, code: 'TW_ERR_ROLLOUT_UNKNOWN' } };
  const actor = request.principal?.actor;
  const outcome = actions.release(id, actor ? `${actor.kind}:${actor.name}` : 'api');
  if (outcome === undefined) return { status: 404, error: { message: `no rollout ${JSON.stringify(id)}`, code: 'TW_ERR_ROLLOUT_UNKNOWN' } };
  if (typeof outcome === 'string') return { status: 409, error: { message: outcome, code: 'TW_ERR_ROLLOUT_NOT_HALTED' } };
  return { status: 202, body: rolloutJson(outcome) };
}

const stageSchema = {
  type: 'object',
  properties: {
    stage: { type: 'integer' },
    hosts: { type: 'array', items: { type: 'string' } },
    state: { type: 'string', enum: ['waiting', 'running', 'soaking', 'halted', 'done'] },
    containers: { type: 'array', items: { type: 'object', additionalProperties: true } },
    soak_until: { type: 'string', format: 'date-time' },
  },
} as const;
const rolloutSchema = {
  type: 'object',
  required: ['id', 'image', 'digest', 'stages', 'state', 'started_at', 'updated_at'],
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    image: { type: 'string' },
    digest: { type: 'string' },
    stages: { type: 'array', items: stageSchema },
    state: { type: 'string', enum: ['running', 'soaking', 'halted', 'done'] },
    started_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;
const errorBody = (description: string) => ({ description, type: 'object', properties: { error: { type: 'string' }, code: { type: 'string' } } });

export function rolloutRoutes(core: TidewatchCore, actions: RolloutActions): void {
  const routes = httpRoutes(core.services);
  routes.register({
    endpoint: ENDPOINT,
    method: 'GET',
    url: '/v1/rollouts',
    role: 'viewer',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Staged rollouts, the most recently changed first (paged)',
      tags: ['rollouts'],
      querystring: { type: 'object', properties: { limit: { type: 'string' }, cursor: { type: 'string' } } },
      response: {
        200: {
          type: 'object',
          required: ['rollouts', 'count'],
          properties: { rollouts: { type: 'array', items: rolloutSchema }, count: { type: 'integer' }, next: { type: 'string' } },
        },
        400: errorBody('A bad limit or cursor'),
      },
    },
    handle: (request) => {
      try {
        return list(actions, request);
      } catch (err) {
        if (err instanceof TidewatchError && err.statusCode < 500) return { status: err.statusCode, error: { message: err.message, code: err.code } };
        throw err;
      }
    },
  });
  routes.register({
    endpoint: ENDPOINT,
    method: 'POST',
    url: '/v1/rollouts/:id/release',
    role: 'operator',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Release a halted rollout',
      description: 'The later stages go on: the stage after the halted one starts once what it replaced has soaked. 202 with the rollout.',
      tags: ['rollouts'],
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      response: {
        202: rolloutSchema,
        404: errorBody('No rollout with this id'),
        409: errorBody('The rollout is not halted'),
      },
    },
    handle: (request) => release(actions, request),
  });
}
