// One error shape for everything fastify or a handler throws (docs/interface.md §4), and the 404/405
// split: a path the server knows (a parametric one such as `/v1/hooks/:receiver` included) answered with a
// method it does not serve is 405 with `Allow`; any other unknown route, including a disabled endpoint's, is
// 404. Fastify itself only knows 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorMessage, errors, isTidewatchError, type Logger } from '../../core/index.js';
import { sendError } from './envelope.js';

interface HttpishError {
  statusCode?: unknown;
  validation?: unknown;
  code?: unknown;
}

function statusOf(err: unknown): number {
  const e = err as HttpishError;
  if (e.validation) return 400;
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  return status >= 400 && status <= 599 ? status : 500;
}

/** Codes for errors that carry none of ours (fastify's own, or an unexpected throw), by status. */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'TW_ERR_HTTP_BAD_REQUEST',
  401: 'TW_ERR_HTTP_UNAUTHORIZED',
  404: 'TW_ERR_HTTP_NOT_FOUND',
  405: 'TW_ERR_HTTP_METHOD',
  413: 'TW_ERR_HTTP_BODY_TOO_LARGE',
  415: 'TW_ERR_HTTP_MEDIA_TYPE',
};

export function codeOf(err: unknown, status: number): string {
  if (isTidewatchError(err)) return err.code;
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'TW_ERR_INTERNAL' : 'TW_ERR_HTTP_BAD_REQUEST');
}

/** Fastify's own errors (FST_*) and ours say what went wrong; anything else stays internal. */
function publicMessage(err: unknown, status: number): string {
  if (isTidewatchError(err) || status < 500) return errorMessage(err);
  const code = (err as HttpishError).code;
  if (typeof code === 'string' && code.startsWith('FST_')) return errorMessage(err);
  return 'internal server error';
}

/** A path with `:name` segments (`/v1/hooks/:receiver`), any one non-empty segment standing for each. */
interface ParametricPath {
  readonly segments: readonly (string | undefined)[];
  readonly methods: Set<string>;
}

function matchesParametric(route: ParametricPath, segments: readonly string[]): boolean {
  if (route.segments.length !== segments.length) return false;
  return route.segments.every((fixed, i) => (fixed === undefined ? segments[i] !== '' : fixed === segments[i]));
}

/** Methods served per path, collected as routes are added; `HEAD` comes with every `GET`. */
export class RouteTable {
  readonly #methods = new Map<string, Set<string>>();
  readonly #prefixes: { prefix: string; methods: Set<string> }[] = [];
  readonly #parametric: ParametricPath[] = [];

  add(url: string, methods: string | string[]): void {
    const list = (Array.isArray(methods) ? methods : [methods]).map((m) => m.toUpperCase());
    if (list.includes('GET')) list.push('HEAD');
    // A catch-all (CORS's `OPTIONS *` preflight route) says nothing about which paths exist.
    if (url === '*' || url === '/*') return;
    if (url.endsWith('*')) {
      this.#prefixes.push({ prefix: url.slice(0, -1), methods: new Set(list) });
      return;
    }
    if (url.includes('/:')) {
      const segments = url.split('/').map((s) => (s.startsWith(':') ? undefined : s));
      this.#parametric.push({ segments, methods: new Set(list) });
      return;
    }
    const set = this.#methods.get(url) ?? new Set<string>();
    for (const m of list) set.add(m);
    this.#methods.set(url, set);
  }

  /** Forgets a path a dependency registered but the API must not serve (`/swagger` alone is 404). */
  remove(url: string): void {
    this.#methods.delete(url);
  }

  /** A whole subtree answering only these methods (`/swagger/` serves only GET and HEAD). */
  addPrefix(prefix: string, methods: string[]): void {
    this.#prefixes.push({ prefix, methods: new Set(methods) });
  }

  allowed(path: string): string[] | undefined {
    const exact = this.#methods.get(path);
    if (exact) return [...exact];
    const segments = path.split('/');
    const matching = [
      ...this.#prefixes.filter((p) => path.startsWith(p.prefix)),
      ...this.#parametric.filter((p) => matchesParametric(p, segments)),
    ];
    if (matching.length === 0) return undefined;
    return [...new Set(matching.flatMap((p) => [...p.methods]))];
  }
}

export function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The core names the plugin and hook an error came through (TW_ERR_PLUGIN, 500); a plugin's own coded error
 * that is not a 500 (the engine that does not answer: 503, docs/errors.md) is what the client should see.
 */
export function shownError(err: unknown): unknown {
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (isTidewatchError(err, errors.pluginFailed) && isTidewatchError(cause) && cause.statusCode !== 500) return cause;
  return err;
}

export function installErrorHandling(app: FastifyInstance, routes: RouteTable, logger: Logger): void {
  app.addHook('onRoute', (route) => {
    routes.add(route.url, route.method);
  });

  app.setErrorHandler((thrown: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const err = shownError(thrown);
    const status = statusOf(err);
    if (status >= 500) {
      logger.error({ err: errorMessage(err), method: request.method, path: pathOf(request) }, 'HTTP API request failed');
    }
    return sendError(reply, status, publicMessage(err, status), codeOf(err, status));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(request);
    const allowed = routes.allowed(path);
    if (allowed && !allowed.includes(request.method)) {
      reply.header('Allow', allowed.sort().join(', '));
      return sendError(reply, 405, `method ${request.method} not allowed on ${path}`, 'TW_ERR_HTTP_METHOD');
    }
    return sendError(reply, 404, `cannot ${request.method} ${path}`, 'TW_ERR_HTTP_NOT_FOUND');
  });
}

/**
 * fastify's `frameworkErrors`: what it refuses before routing (a path that is not valid percent-encoding,
 * FST_ERR_BAD_URL) gets the same error envelope as everything else, not fastify's own body.
 */
export function frameworkErrors(err: Error, _request: FastifyRequest, reply: FastifyReply): void {
  const status = statusOf(err);
  void sendError(reply, status, publicMessage(err, status), codeOf(err, status));
}
