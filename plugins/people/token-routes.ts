// /v1/tokens (docs/people.md#personal-api-tokens), endpoint name `tokens`, admin only: create (the secret
// is in the 201 and nowhere else), list without secrets, revoke at once. Contributed on the HTTP API's
// registration point: the API authenticates, checks the role, limits the rate and the body size first.
import {
  ROLES,
  TidewatchError,
  formatGoDuration,
  httpRoutes,
  parseGoDuration,
  type HttpRouteRequest,
  type HttpRouteResponse,
  type Logger,
  type Role,
  type TidewatchCore,
} from '../../core/index.js';
import { parsePageQuery } from '../../contracts/index.js';
import { MAX_TOKENS, type TokenRegistry } from './tokens.js';

const ENDPOINT = 'tokens';
/** `{"name","role","expires_in"}` fits in far less. */
const BODY_LIMIT = 4_096;
const MAX_NAME = 100;
/** Ten years: a token meant never to expire says so by leaving `expires_in` out. */
const MAX_EXPIRES_MS = 10 * 366 * 24 * 3_600_000;

function bad(message: string, status = 400, code = 'TW_ERR_TOKEN_INVALID'): HttpRouteResponse {
  return { status, error: { message, code } };
}

interface CreateRequest {
  readonly name: string;
  readonly role: Role;
  readonly expiresInMs?: number;
}

/** The body of `POST /v1/tokens`, or the 4xx saying what is wrong with it. */
export function parseCreate(request: HttpRouteRequest): CreateRequest | HttpRouteResponse {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return bad('expected a JSON body (Content-Type: application/json)', 415, 'TW_ERR_HTTP_MEDIA_TYPE');
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    return bad('the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('expected a JSON object {"name","role","expires_in"?}');
  const { name, role, expires_in: expiresIn } = body as Record<string, unknown>;
  // Printable, no control characters: the name is written to logs, the audit trail and notifications.
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    return bad(`"name" must be a non-empty string of at most ${MAX_NAME} printable characters`);
  }
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) return bad(`"role" must be one of ${ROLES.join(', ')}`);
  if (expiresIn === undefined || expiresIn === null) return { name: name.trim(), role: role as Role };
  let ms: number;
  try {
    ms = typeof expiresIn === 'string' ? parseGoDuration(expiresIn) : NaN;
  } catch {
    ms = NaN;
  }
  if (!(ms > 0) || ms > MAX_EXPIRES_MS) {
    return bad(`"expires_in" must be a duration above 0 and at most ${formatGoDuration(MAX_EXPIRES_MS)} (e.g. "720h"), or left out`);
  }
  return { name: name.trim(), role: role as Role, expiresInMs: ms };
}

const tokenView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', enum: [...ROLES] },
    created_at: { type: 'string', format: 'date-time' },
    // No `type`: Swagger 2.0 has no nullable string, and these are RFC 3339 or null.
    expires_at: { description: 'RFC 3339, or null: the token does not expire' },
    last_used_at: { description: 'RFC 3339, or null: never used' },
  },
} as const;

export function tokenRoutes(core: TidewatchCore, tokens: TokenRegistry, logger: Logger): void {
  const routes = httpRoutes(core.services);
  routes.register({
    endpoint: ENDPOINT,
    method: 'POST',
    url: '/v1/tokens',
    role: 'admin',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Create a personal API token',
      description: 'The token is in this answer only: Tidewatch keeps its SHA-256, never the token.',
      tags: ['people'],
      consumes: ['application/json'],
    },
    handle: (request) => {
      const parsed = parseCreate(request);
      if ('status' in parsed) return parsed;
      if (tokens.size >= MAX_TOKENS) return bad(`at most ${MAX_TOKENS} tokens: revoke one first`, 409, 'TW_ERR_TOKEN_LIMIT');
      if (tokens.hasName(parsed.name)) return bad(`a token named ${JSON.stringify(parsed.name)} exists: revoke it or choose another name`, 409, 'TW_ERR_TOKEN_NAME_TAKEN');
      const { token, secret } = tokens.create(parsed.name, parsed.role, parsed.expiresInMs);
      logger.info({ token: token.name, id: token.id, role: token.role, by: request.principal?.actor, ip: request.ip }, 'personal API token created');
      return { status: 201, body: { id: token.id, name: token.name, token: secret, role: token.role, expires_at: token.expires_at } };
    },
  });
  routes.register({
    endpoint: ENDPOINT,
    method: 'GET',
    url: '/v1/tokens',
    role: 'admin',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Personal API tokens',
      description:
        'The live tokens, without their secrets, in pages (docs/http-api.md#pages): the newest page first, oldest first within a page; `next` is the cursor of the older page.',
      tags: ['people'],
      querystring: {
        type: 'object',
        properties: {
          limit: { type: 'string', description: 'Tokens in this page, 0 to 1000 (default 100)' },
          cursor: { type: 'string', description: "The previous answer's next: the page of older tokens" },
        },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            tokens: { type: 'array', items: tokenView },
            count: { type: 'integer', description: 'Tokens in this page' },
            next: { type: 'string', description: 'Cursor of the page of older tokens; absent on the last page' },
            api_version: { type: 'string' },
            timestamp: { type: 'string' },
          },
        },
      },
    },
    handle: (request) => {
      const page = parsePageQuery(request.query.limit, request.query.cursor);
      if ('parameter' in page) return bad(`invalid '${page.parameter}' parameter: ${page.why}`, 400, 'TW_ERR_HTTP_BAD_QUERY');
      try {
        const { entries, next } = tokens.list(page);
        return { status: 200, body: { tokens: entries, count: entries.length, ...(next === undefined ? {} : { next }) } };
      } catch (err) {
        if (err instanceof TidewatchError && err.statusCode < 500) return bad(err.message, err.statusCode, err.code);
        throw err;
      }
    },
  });
  routes.register({
    endpoint: ENDPOINT,
    method: 'DELETE',
    url: '/v1/tokens/:id',
    role: 'admin',
    bodyLimit: BODY_LIMIT,
    schema: { summary: 'Revoke a personal API token', description: 'At once: the next request with it gets 401.', tags: ['people'] },
    handle: (request) => {
      const revoked = tokens.revoke(request.params.id ?? '');
      if (!revoked) return bad(`no token ${JSON.stringify((request.params.id ?? '').slice(0, 64))}`, 404, 'TW_ERR_TOKEN_UNKNOWN');
      logger.info({ token: revoked.name, id: revoked.id, by: request.principal?.actor, ip: request.ip }, 'personal API token revoked');
      return { status: 200, body: { id: revoked.id, name: revoked.name, revoked_at: revoked.revoked_at } };
    },
  });
}
