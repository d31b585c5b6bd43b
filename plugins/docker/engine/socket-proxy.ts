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

/** The groups of docs/security.md "Engine endpoints per mode": which calls each way of running needs. */
export type EngineCallGroup = 'check' | 'update' | 'cleanup' | 'hooks' | 'swarm';

/** The table of docs/security.md "Engine endpoints per mode", row by row: method, path template, group. */
export const ENGINE_CALLS: readonly (readonly [string, string, EngineCallGroup])[] = [
  ['GET', '/version', 'check'],
  ['GET', '/info', 'check'],
  ['GET', '/containers/json', 'check'],
  ['GET', '/containers/{id}/json', 'check'],
  ['GET', '/images/{name}/json', 'check'],
  ['GET', '/images/json', 'check'],
  ['GET', '/events', 'check'],
  ['GET', '/_ping', 'check'],
  ['POST', '/images/create', 'update'],
  ['POST', '/images/{name}/tag', 'update'],
  ['POST', '/containers/create', 'update'],
  ['POST', '/containers/{id}/rename', 'update'],
  ['POST', '/containers/{id}/stop', 'update'],
  ['POST', '/containers/{id}/kill', 'update'],
  ['POST', '/containers/{id}/wait', 'update'],
  ['POST', '/containers/{id}/start', 'update'],
  ['DELETE', '/containers/{id}', 'update'],
  ['GET', '/containers/{id}/archive', 'update'],
  ['HEAD', '/containers/{id}/archive', 'update'],
  ['PUT', '/containers/{id}/archive', 'update'],
  ['POST', '/networks/{id}/connect', 'update'],
  ['DELETE', '/images/{name}', 'cleanup'],
  ['POST', '/containers/{id}/exec', 'hooks'],
  ['POST', '/exec/{id}/start', 'hooks'],
  ['GET', '/exec/{id}/json', 'hooks'],
  ['GET', '/swarm', 'swarm'],
  ['GET', '/services', 'swarm'],
  ['GET', '/services/{id}', 'swarm'],
  ['POST', '/services/{id}/update', 'swarm'],
  ['GET', '/tasks', 'swarm'],
];

/** The call groups a runtime with these settings needs (docs/security.md, "What each way of running Tidewatch needs"). */
export function callGroups(options: { readonly monitorOnly: boolean; readonly cleanup: boolean; readonly enableLifecycleHooks: boolean }): EngineCallGroup[] {
  return [
    'check',
    // Monitor-only writes nothing: a leftover of an interrupted update is then named in the log, not repaired.
    ...(options.monitorOnly ? [] : (['update'] as const)),
    ...(options.cleanup && !options.monitorOnly ? (['cleanup'] as const) : []),
    ...(options.enableLifecycleHooks ? (['hooks'] as const) : []),
    'swarm',
  ];
}

/** Whether the call (`GET`, `/v1.41/containers/abc/json?all=1`) is in one of the allowed groups. */
export function callAllowed(groups: readonly string[], method: string, path: string): boolean {
  // An image name keeps its slashes in the path: a dot segment could walk `/images/../volumes/x` to another
  // section once the engine cleans the path. No Tidewatch call has one, encoded or not.
  const bare = path.replace(/\?.*$/, '');
  if (!bare.startsWith('/') || /%2e|%2f|%5c|\\|\/\//i.test(bare) || /(^|\/)\.{1,2}(\/|$)/.test(bare) || /[^\x21-\x7e]/.test(bare)) return false;
  const template = endpointTemplate(path);
  return ENGINE_CALLS.some(([m, t, group]) => m === method && t === template && groups.includes(group));
}
