// A filtering Docker socket proxy in front of the Engine (docs/security.md#when-the-proxy-refuses-a-call): it lets through the
// API sections it was told to allow and answers anything else with 403 and an HTML page of its own. The Engine
// itself never answers these calls with 403 and always answers an error in JSON, so a 403 without a JSON
// message is the proxy's refusal, reported as TW_ERR_DOCKER_PROXY_REFUSED: the call as the Engine API names
// it (`POST /containers/{id}/stop`) and the proxy switches that allow it (docker-socket-proxy's CONTAINERS=1,
// POST=1, ...), never the raw HTML.
export const PROXY_REFUSED = 'TW_ERR_DOCKER_PROXY_REFUSED';

/** Names that a path segment stands for in the Engine API's own paths. */
const FIXED = new Set(['json', 'create']);

/**
 * The Engine API's path template of a call (`/containers/{id}/stop`, `/images/{name}/json`): the version
 * prefix and query dropped, ids and names replaced by their placeholders.
 */
export function endpointTemplate(path: string): string {
  const bare = path.replace(/\?.*$/, '').replace(/^\/v\d+(\.\d+)?(?=\/)/, '');
  const [, section = '', ...rest] = bare.split('/');
  if (rest.length === 0) return `/${section}`;
  if (section === 'images') {
    // An image name keeps its slashes and colons in the path: everything up to a trailing /json or /tag is the name.
    const tail = rest.join('/');
    if (FIXED.has(tail)) return `/images/${tail}`;
    if (tail.endsWith('/json')) return '/images/{name}/json';
    return tail.endsWith('/tag') ? '/images/{name}/tag' : '/images/{name}';
  }
  const [first = '', ...more] = rest;
  const head = FIXED.has(first) && more.length === 0 ? first : '{id}';
  return ['', section, head, ...more].join('/');
}

/** The docker-socket-proxy switches a call needs: its section's, and POST for any method but GET and HEAD. */
export function proxySwitches(method: string, template: string): string[] {
  const section = template.split('/')[1] ?? '';
  const name = section === '_ping' ? 'PING' : section.toUpperCase();
  return method === 'GET' || method === 'HEAD' ? [name] : [name, 'POST'];
}

/** A refusal by a socket proxy: 403 with a body that is not the Engine's JSON. */
export function isProxyRefusal(status: number, json: unknown): boolean {
  return status === 403 && !(typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string');
}

/** The message of a refusal: the call as the Engine API names it, and what the proxy must allow. */
export function refusalMessage(method: string, path: string): { endpoint: string; switches: string[]; message: string } {
  const template = endpointTemplate(path);
  const switches = proxySwitches(method, template);
  const endpoint = `${method} ${template}`;
  return { endpoint, switches, message: `the Docker socket proxy refused ${endpoint} (403): allow ${switches.join(' and ')}` };
}
