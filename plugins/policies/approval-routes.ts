// /v1/approvals (docs/http-api.md#approvals), endpoint name `approvals`, main token: the list, and a person's
// approve / reject / defer. Contributed on the HTTP API's registration point, so this plugin imports nothing of
// the API; the API checks the main token before a handler runs, limits the rate per client and the body size.
import {
  TidewatchError,
  formatGoDuration,
  httpRoutes,
  parseGoDuration,
  type ApprovalEntry,
  type HttpRouteRequest,
  type HttpRouteResponse,
  type TidewatchCore,
} from '../../core/index.js';
import { parsePageQuery, type Page, type PageQuery } from '../../contracts/index.js';
import type { ApprovalDecider, ApprovalDecision, UpdatePolicies } from './contracts.js';

const ENDPOINT = 'approvals';
/** No route here takes a body: anything larger than this is refused with 413 before it is read. */
const BODY_LIMIT = 1_024;
/** The longest deferral: a year is "no" in all but name, and bounds the date arithmetic. */
const MAX_DEFER_MS = 366 * 24 * 3_600_000;
const STATES = ['pending', 'approved', 'rejected', 'deferred', 'superseded', 'applied'];

function badQuery(name: string, why: string): HttpRouteResponse {
  return { status: 400, error: { message: `invalid '${name}' parameter: ${why}`, code: 'TW_ERR_HTTP_BAD_QUERY' } };
}

const entrySchema = {
  type: 'object',
  required: ['id', 'container', 'image', 'latest_digest', 'requested_at', 'state'],
  properties: {
    id: { type: 'string' },
    container: { type: 'string' },
    host: { type: 'string' },
    container_id: { type: 'string', description: 'The runtime id of the container asked about; the entry follows it through Tidewatch\'s own replacements.' },
    image: { type: 'string' },
    current_tag: { type: 'string' },
    latest_tag: { type: 'string' },
    latest_digest: { type: 'string' },
    update_kind: { type: 'string', enum: ['digest', 'patch', 'minor', 'major'] },
    requested_at: { type: 'string', format: 'date-time' },
    state: { type: 'string', enum: STATES },
    deferred_until: { type: 'string', format: 'date-time' },
    decided_at: { type: 'string', format: 'date-time' },
    decided_by: { type: 'string', enum: ['api', 'dashboard', 'mqtt'] },
    reason: { type: 'string', description: 'Why the entry is superseded.' },
    actor: { type: 'object', properties: { kind: { type: 'string' }, name: { type: 'string' } }, description: 'Who decided (docs/people.md)' },
  },
} as const;

const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;
const errorBody = (description: string) => ({ description, type: 'object', properties: { error: { type: 'string' }, code: { type: 'string' } } });

function parseBy(request: HttpRouteRequest): ApprovalDecider | HttpRouteResponse {
  const by = request.query.by ?? 'api';
  return by === 'api' || by === 'dashboard' ? by : badQuery('by', 'expected api or dashboard');
}

function parseDefer(request: HttpRouteRequest): number | HttpRouteResponse {
  const text = request.query.for;
  if (text === undefined) return 24 * 3_600_000;
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch {
    return badQuery('for', 'expected a duration such as 24h or 30m');
  }
  if (ms <= 0 || ms > MAX_DEFER_MS) return badQuery('for', `expected a duration above 0 and at most ${formatGoDuration(MAX_DEFER_MS)}`);
  return ms;
}

function parseNow(request: HttpRouteRequest): boolean | HttpRouteResponse {
  const now = request.query.now;
  if (now === undefined || now === 'false' || now === '0') return false;
  if (now === 'true' || now === '1') return true;
  return badQuery('now', 'expected true or false');
}

function isResponse(value: unknown): value is HttpRouteResponse {
  return typeof value === 'object' && value !== null && 'status' in value;
}

async function decide(policies: UpdatePolicies, decision: ApprovalDecision, request: HttpRouteRequest): Promise<HttpRouteResponse> {
  const id = request.params.id ?? '';
  const by = parseBy(request);
  if (isResponse(by)) return by;
  const deferMs = decision === 'defer' ? parseDefer(request) : undefined;
  if (isResponse(deferMs)) return deferMs;
  const now = decision === 'approve' ? parseNow(request) : false;
  if (isResponse(now)) return now;
  const actor = request.principal?.actor;
  const outcome = await policies.decide(id, decision, { by, ...(actor ? { actor } : {}), ...(deferMs !== undefined ? { deferMs } : {}), now });
  switch (outcome.status) {
    case 'unknown':
      return { status: 404, error: { message: `no approval ${JSON.stringify(id.slice(0, 64))}`, code: 'TW_ERR_APPROVAL_UNKNOWN' } };
    case 'conflict':
      return { status: 409, error: { message: outcome.reason, code: 'TW_ERR_APPROVAL_CONFLICT' } };
    case 'decided':
      return { status: 202, body: { ...outcome.entry, ...(outcome.runId ? { run_id: outcome.runId } : {}) } };
  }
}

/** A page of the approvals, filters applied before paging (ApprovalLedger.page). */
export type ApprovalsPage = (query: PageQuery & { readonly state?: string | undefined; readonly container?: string | undefined }) => Page<ApprovalEntry>;

function list(pageOf: ApprovalsPage, request: HttpRouteRequest): HttpRouteResponse {
  const { state, container } = request.query;
  if (state !== undefined && !STATES.includes(state)) return badQuery('state', `expected one of ${STATES.join(', ')}`);
  if (container === '') return badQuery('container', 'empty value');
  const page = parsePageQuery(request.query.limit, request.query.cursor);
  if ('parameter' in page) return badQuery(page.parameter, page.why);
  const { entries: approvals, next } = pageOf({ ...page, state, container });
  return { status: 200, body: { approvals, count: approvals.length, ...(next === undefined ? {} : { next }) } };
}

/** A TidewatchError a handler throws with a 4xx (a cursor not from this server) is that answer, not a 500. */
async function answering(handle: () => HttpRouteResponse | Promise<HttpRouteResponse>): Promise<HttpRouteResponse> {
  try {
    return await handle();
  } catch (err) {
    if (err instanceof TidewatchError && err.statusCode < 500) return { status: err.statusCode, error: { message: err.message, code: err.code } };
    throw err;
  }
}

const DECISIONS: readonly { decision: ApprovalDecision; summary: string; description: string }[] = [
  {
    decision: 'approve',
    summary: 'Approve a pending update',
    description:
      'Applies exactly the approved candidate (its digest) through a targeted update, at once inside the container\'s window ' +
      'or with now=true, else in the window\'s first run. 202 with the entry and, when a run started, its run_id.',
  },
  { decision: 'reject', summary: 'Reject a pending update', description: 'That candidate is never applied; a newer one asks again.' },
  { decision: 'defer', summary: 'Defer a pending update', description: 'Asks again after `for` (a duration, default 24h).' },
];

export function approvalRoutes(core: TidewatchCore, policies: UpdatePolicies, pageOf: ApprovalsPage): void {
  const routes = httpRoutes(core.services);
  routes.register({
    endpoint: ENDPOINT,
    method: 'GET',
    url: '/v1/approvals',
    role: 'viewer',
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Pending and decided approvals',
      description:
        'In pages (docs/http-api.md#pages), filters applied before paging: the newest page first, oldest first within a page; `next` is the cursor of the older page.',
      tags: ['approvals'],
      querystring: {
        type: 'object',
        properties: {
          state: { type: 'string', enum: STATES },
          container: { type: 'string' },
          limit: { type: 'string', description: 'Entries in this page, 0 to 1000 (default 100)' },
          cursor: { type: 'string', description: "The previous answer's next: the page of older entries" },
        },
      },
      response: {
        200: {
          type: 'object',
          required: ['approvals', 'count'],
          properties: {
            approvals: { type: 'array', items: entrySchema },
            count: { type: 'integer', description: 'Entries in this page' },
            next: { type: 'string', description: 'Cursor of the page of older entries; absent on the last page' },
          },
        },
      },
    },
    handle: (request) => answering(() => list(pageOf, request)),
  });
  for (const { decision, summary, description } of DECISIONS) {
    routes.register({
      endpoint: ENDPOINT,
      method: 'POST',
      url: `/v1/approvals/:id/${decision}`,
      role: 'operator',
      bodyLimit: BODY_LIMIT,
      schema: {
        summary,
        description,
        tags: ['approvals'],
        params: idParam,
        response: {
          202: { ...entrySchema, properties: { ...entrySchema.properties, run_id: { type: 'string' } } },
          400: errorBody('A bad query parameter'),
          401: errorBody('Missing or invalid token'),
          404: errorBody('No approval with this id'),
          409: errorBody('The entry is no longer pending (superseded: with why), its container was replaced, left the watched set or is gone, or the candidate is gone from the registry'),
        },
      },
      handle: (request) => answering(() => decide(policies, decision, request)),
    });
  }
}
