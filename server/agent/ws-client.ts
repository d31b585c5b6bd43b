// ws's WebSocket client for the agent, without node:tls and node:https for a plain ws:// controller
// (docs/fleet.md#footprint). ws's client module requires `https` and `tls` at its top, yet reaches them only
// to dial a wss:// URL (`https.request` and `tls.connect`, inside the dial); loaded, the two keep about 5 MB
// resident in an idle agent. Node checks require.cache before its built-in modules for a name without the
// `node:` scheme (a documented rule of its CommonJS loader), so while ws's modules load, `https` and `tls`
// are stand-ins that load the real module at their first use: a wss:// controller loads them at its first
// dial, a ws:// one never does. ws does all of the protocol itself: handshake, framing, pings, close.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type WebSocket from 'ws';

/**
 * The built-in modules ws requires at its top but uses only for wss:// (https, tls) or for permessage-deflate
 * (zlib), which the agent never offers (`perMessageDeflate: false`, server/agent/link.ts).
 */
const DEFERRED = ['https', 'tls', 'zlib'] as const;

interface CachedModule {
  readonly id: string;
  readonly filename: string;
  readonly loaded: true;
  readonly children: never[];
  readonly exports: object;
}

/** A module whose every property is the real built-in's, which loads at the first property read. */
function standIn(name: (typeof DEFERRED)[number]): CachedModule {
  let real: object | undefined;
  const load = (): object => (real ??= process.getBuiltinModule(`node:${name}`) as object);
  const exports = new Proxy({}, { get: (_target, key) => Reflect.get(load(), key), has: (_target, key) => Reflect.has(load(), key) });
  return { id: name, filename: name, loaded: true, children: [], exports };
}

let loaded: typeof WebSocket | undefined;

/** ws's WebSocket class, its TLS modules deferred to the first wss:// dial. */
export function webSocketClass(): typeof WebSocket {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const cache = require.cache as Record<string, CachedModule | NodeJS.Module | undefined>;
  const placed = DEFERRED.filter((name) => cache[name] === undefined);
  for (const name of placed) cache[name] = standIn(name);
  try {
    // The client class alone: ws's entry (index.js) also loads its server, its stream wrapper and its
    // subprotocol parser, which a client never uses (0.6 MB of an idle agent). lib/websocket.js is the very
    // class the entry exports as the package; it is reached by path, next to the entry that package.json
    // names, since ws's `exports` map offers no subpath.
    loaded = require(join(dirname(require.resolve('ws')), 'lib', 'websocket.js')) as typeof WebSocket;
  } finally {
    // Only ws's own modules, loaded just now, hold the stand-ins; every later require gets Node's module.
    for (const name of placed) delete cache[name];
  }
  return loaded;
}
