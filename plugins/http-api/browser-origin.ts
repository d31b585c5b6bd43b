// Browsers send cookies with a cross-site form post, and a page on any origin can make one: a route that changes
// state must know the request comes from the API's own pages (or an origin the operator listed), whatever the
// credential it carries (header, cookie or session). One hook for every POST, PUT, PATCH and DELETE, so a route
// added later is covered without saying so (docs/http-api.md#browsers-and-other-origins):
//   - an `Origin` that is neither the API's own origin nor listed in --http-api-cors-origins is refused with 403
//     (`Origin: null`, what sandboxed frames and some redirects send, too; `*` lists no origin);
//   - without `Origin`, `Sec-Fetch-Site: cross-site` is refused the same way.
// Webhooks are left out: their senders are servers, and each request carries its own signature or token.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../../core/index.js';
import type { ProxyTrust } from './guards/client-ip.js';
import { sendError } from './envelope.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WEBHOOKS = '/v1/hooks/';

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Why a state-changing request from a browser is refused, or undefined when it may go on. */
export function crossOriginRefusal(
  origin: string | undefined,
  fetchSite: string | undefined,
  ownHost: string | undefined,
  allowed: readonly string[],
): string | undefined {
  if (origin === undefined) {
    return fetchSite?.trim().toLowerCase() === 'cross-site' ? 'a cross-site request may not change anything' : undefined;
  }
  if (origin !== 'null' && allowed.includes(origin)) return undefined;
  try {
    if (origin !== 'null' && ownHost !== undefined && new URL(origin).host === ownHost.toLowerCase()) return undefined;
  } catch {
    // Not a URL: refused below.
  }
  return `origin ${origin.slice(0, 200)} may not change anything (only this API's own origin and --http-api-cors-origins)`;
}

export function installBrowserOriginRule(app: FastifyInstance, proxies: ProxyTrust, allowed: readonly string[], logger: Logger): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    if (!STATE_CHANGING.has(request.method) || request.url.startsWith(WEBHOOKS)) return;
    const refusal = crossOriginRefusal(single(request.headers.origin), single(request.headers['sec-fetch-site']), proxies.host(request), allowed);
    if (refusal === undefined) return;
    logger.warn({ client: proxies.client(request).ip, method: request.method, path: request.url.split('?')[0] }, `refused: ${refusal}`);
    return sendError(reply, 403, refusal, 'TW_ERR_HTTP_ORIGIN');
  });
}
