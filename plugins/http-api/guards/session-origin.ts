// The browser rule for sessions (docs/security.md, sessions): a session cookie is sent by the browser with
// whatever request a page makes, so a state-changing request (anything but GET and HEAD) that carries one
// must come from the API's own origin, the public URL's, or one listed in --http-api-cors-origins. `Origin:
// null` is refused; without Origin, `Sec-Fetch-Site: cross-site` is refused. SameSite=Strict already keeps
// the cookie off cross-site requests in current browsers; this check does not rely on it.
import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin this request was addressed to, as a browser on our own page would send it. */
function ownOrigin(request: FastifyRequest): string | undefined {
  const host = request.headers.host;
  return host ? `${request.protocol}://${host}` : undefined;
}

/** Why a session request is refused as cross-origin, or undefined when it may go on. */
export function crossOriginRefusal(request: FastifyRequest, allowed: readonly string[]): string | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  const origin = request.headers.origin;
  if (origin === undefined) {
    return request.headers['sec-fetch-site'] === 'cross-site' ? 'cross-site request refused for a session' : undefined;
  }
  if (origin !== 'null' && (origin === ownOrigin(request) || allowed.includes(origin))) return undefined;
  return `origin ${JSON.stringify(origin.slice(0, 100))} refused for a session`;
}
