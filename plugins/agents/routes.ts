// /v1/agents (docs/fleet.md, endpoint name `agents`, admin only, reading included, decisions §20):
// `POST /v1/agents/enrolments` makes a one-time enrolment token (shown once, kept hashed), `GET /v1/agents`
// lists the agents and whether each is online, `DELETE /v1/agents/{name}` revokes one at once. Contributed on
// the API's registration point: the API authenticates, checks the role, limits rate and body size first.
import { formatGoDuration, httpRoutes, parseGoDuration, type HttpRouteRequest, type HttpRouteResponse, type Logger, type TidewatchCore } from '../../core/index.js';
import { AGENT_NAME } from './protocol.js';
import type { AgentRegistry } from './registry.js';

const ENDPOINT = 'agents';
const BODY_LIMIT = 4_096;
const DEFAULT_EXPIRES_MS = 3_600_000;
const MAX_EXPIRES_MS = 30 * 24 * 3_600_000;

function bad(message: string, status = 400, code = 'TW_ERR_AGENT_INVALID'): HttpRouteResponse {
  return { status, error: { message, code } };
}

/** The body of `POST /v1/agents/enrolments` (`{"name"?, "expires_in"?}`; an empty body is `{}`), or the 4xx. */
export function parseEnrolment(request: HttpRouteRequest): { name?: string; expiresInMs: number } | HttpRouteResponse {
  let body: unknown = {};
  if (request.body.length > 0) {
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
      return bad('expected a JSON body (Content-Type: application/json)', 415, 'TW_ERR_HTTP_MEDIA_TYPE');
    }
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return bad('the body is not valid JSON');
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('expected a JSON object {"name"?, "expires_in"?}');
  const { name, expires_in: expiresIn } = body as Record<string, unknown>;
  if (name !== undefined && (typeof name !== 'string' || !AGENT_NAME.test(name))) {
    return bad('"name" must be 1-63 letters, digits, dots, dashes or underscores, starting with a letter or digit');
  }
  let ms = DEFAULT_EXPIRES_MS;
  if (expiresIn !== undefined) {
    try {
      ms = typeof expiresIn === 'string' ? parseGoDuration(expiresIn) : NaN;
    } catch {
      ms = NaN;
    }
    if (!(ms > 0) || ms > MAX_EXPIRES_MS) return bad(`"expires_in" must be a duration above 0 and at most ${formatGoDuration(MAX_EXPIRES_MS)} (e.g. "1h")`);
  }
  return { ...(name === undefined ? {} : { name }), expiresInMs: ms };
}

const agentView = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    host: { type: 'string' },
    state: { type: 'string', enum: ['online', 'offline'] },
    stage: { type: 'integer' },
    enrolled_at: { type: 'string', format: 'date-time' },
    connected_at: { description: 'RFC 3339, or null while offline' },
    last_seen: { description: 'RFC 3339, or null: never seen' },
    version: { description: "the agent's Tidewatch version, or null" },
    engine_version: { description: "its engine's version, or null until the runtime read it" },
    containers: { description: 'containers found on its engine at the last discovery, or null' },
  },
} as const;

export function agentRoutes(core: TidewatchCore, registry: AgentRegistry, logger: Logger): void {
  const routes = httpRoutes(core.services);
  routes.register({
    endpoint: ENDPOINT,
    method: 'POST',
    url: '/v1/agents/enrolments',
    role: 'admin',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Create a one-time agent enrolment token',
      description: 'The token is in this answer only: Tidewatch keeps its SHA-256. An agent spends it at its first connection.',
      tags: ['agents'],
      consumes: ['application/json'],
    },
    handle: (request) => {
      const parsed = parseEnrolment(request);
      if ('status' in parsed) return parsed;
      if (parsed.name !== undefined && registry.store.agent(parsed.name)) {
        return bad(`an agent named ${JSON.stringify(parsed.name)} is enrolled: revoke it first`, 409, 'TW_ERR_AGENT_NAME_TAKEN');
      }
      const { token, expires_at } = registry.store.createToken(parsed.name, parsed.expiresInMs);
      logger.info({ name: parsed.name, expires_at, by: request.principal?.actor, ip: request.ip }, 'agent enrolment token created');
      return { status: 201, body: { token, expires_at, ...(parsed.name === undefined ? {} : { name: parsed.name }) } };
    },
  });
  routes.register({
    endpoint: ENDPOINT,
    method: 'GET',
    url: '/v1/agents',
    role: 'admin',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Agents',
      description: 'Every enrolled agent, online or offline, with when it was last seen.',
      tags: ['agents'],
      response: {
        200: {
          type: 'object',
          properties: { agents: { type: 'array', items: agentView }, count: { type: 'integer' }, online: { type: 'integer' }, api_version: { type: 'string' }, timestamp: { type: 'string' } },
        },
      },
    },
    handle: () => {
      const agents = registry.view().sort((a, b) => a.name.localeCompare(b.name));
      return { status: 200, body: { agents, count: agents.length, online: agents.filter((a) => a.state === 'online').length } };
    },
  });
  routes.register({
    endpoint: ENDPOINT,
    method: 'DELETE',
    url: '/v1/agents/:name',
    role: 'admin',
    bodyLimit: BODY_LIMIT,
    schema: { summary: 'Revoke an agent', description: 'At once: its tunnel closes and its key is refused from then on.', tags: ['agents'] },
    handle: (request) => {
      const name = request.params.name ?? '';
      const revoked = registry.revoke(name);
      if (!revoked) return bad(`no agent ${JSON.stringify(name.slice(0, 64))}`, 404, 'TW_ERR_AGENT_UNKNOWN');
      const revokedAt = new Date().toISOString();
      logger.info({ agent: name, by: request.principal?.actor, ip: request.ip }, 'agent revoked');
      return { status: 200, body: { name, host: `agent://${name}`, revoked_at: revokedAt } };
    },
  });
}
