// `GET /v1/agents/connect` (docs/fleet.md#what-crosses): the WebSocket an agent dials, on the API's port and
// its TLS. The API has counted the request in its rate limiter and refused browsers (plugins/http-api/upgrades.ts);
// here an address with too many refused handshakes is refused before any work, every message is bounded
// (MAX_HELLO before the agent is known, MAX_MESSAGE after), the agent proves its Ed25519 key over a fresh
// challenge at every connection, and an enrol token is spent once. Refusals are logged with the address, the
// name and why, never a token or a key. A silent tunnel (no pong for PING_TIMEOUT_MS) is closed: the agent
// goes offline at once instead of when TCP gives up.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import type { HttpUpgradeDefinition, Logger } from '../../core/index.js';
import { Mux } from './mux.js';
import { CLOSE, MAX_HELLO, MAX_MESSAGE, newNonce, parseHello, verifyHello, type Hello } from './protocol.js';
import type { AgentRegistry, Tunnel } from './registry.js';
import { MAX_AGENTS } from './store.js';

export const CONNECT_PATH = '/v1/agents/connect';
const HELLO_TIMEOUT_MS = 10_000;
const PING_INTERVAL_MS = 15_000;
const PING_TIMEOUT_MS = 45_000;
/** Refused handshakes per address per window before its attempts are refused unheard. */
const MAX_REFUSALS = 10;
const REFUSAL_WINDOW_MS = 60_000;

class RefusalCounter {
  readonly #byIp = new Map<string, number[]>();

  blocked(ip: string): boolean {
    const now = Date.now();
    const times = (this.#byIp.get(ip) ?? []).filter((t) => now - t < REFUSAL_WINDOW_MS);
    if (times.length === 0) this.#byIp.delete(ip);
    else this.#byIp.set(ip, times);
    return times.length >= MAX_REFUSALS;
  }

  count(ip: string): void {
    const times = this.#byIp.get(ip) ?? [];
    times.push(Date.now());
    this.#byIp.set(ip, times.slice(-MAX_REFUSALS));
    if (this.#byIp.size > 10_000) this.#byIp.delete(this.#byIp.keys().next().value as string);
  }
}

function parseRefusedCall(message: string): string | undefined {
  try {
    const v = JSON.parse(message) as { type?: unknown; method?: unknown; path?: unknown };
    if (v.type !== 'refused-call' || typeof v.method !== 'string' || typeof v.path !== 'string') return undefined;
    return `${v.method.slice(0, 10)} ${v.path.slice(0, 200)}`.replace(/[^\x20-\x7e]/g, '?');
  } catch {
    return undefined;
  }
}

function text(data: RawData): string {
  return Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as Buffer).toString('utf8');
}

function size(data: RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer).byteLength;
}

export function tunnelRoute(registry: AgentRegistry, logger: Logger, version: string): HttpUpgradeDefinition & { close(): void } {
  // ws (and with it https and tls) loads at the first agent's connection, not in every controller
  // (docs/performance.md#footprint).
  let wss: Promise<WebSocketServer> | undefined;
  const server = () =>
    (wss ??= import('ws').then(({ WebSocketServer: Server }) => new Server({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false, clientTracking: false })));
  const refusals = new RefusalCounter();
  const live = new Set<WebSocket>();

  const refuse = (ws: WebSocket, ip: string, name: string | undefined, reason: string) => {
    refusals.count(ip);
    logger.warn({ ip, agent: name, reason }, 'refused an agent');
    if (ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify({ type: 'refused', reason }));
      ws.close(CLOSE.REFUSED, reason.slice(0, 100));
    }
    setTimeout(() => ws.terminate(), 2_000).unref();
  };

  /** Whether `hello` may connect: the key of an enrolled name, or a valid token for a new one. */
  const admit = (hello: Hello, nonce: string): string | undefined => {
    const enrolled = registry.store.agent(hello.name);
    if (enrolled) {
      if (enrolled.public_key !== hello.public_key) return `the name ${hello.name} is enrolled with another key`;
      return verifyHello(hello, nonce) ? undefined : 'the challenge was not signed by the enrolled key';
    }
    if (hello.enrol_token === undefined) return `${hello.name} is not enrolled and presented no enrol token`;
    const check = registry.store.checkToken(hello.enrol_token, hello.name);
    if (!check.ok) {
      const why = { unknown: 'unknown', spent: 'already spent', expired: 'expired', 'other-name': 'issued for another name' }[check.why];
      return `enrol token ${why}`;
    }
    if (!verifyHello(hello, nonce)) return 'the challenge was not signed by the presented key';
    if (registry.store.size >= MAX_AGENTS) return `at most ${MAX_AGENTS} agents: revoke one first`;
    const agent = registry.store.enrol(hello.enrol_token, hello.name, hello.public_key, hello.stage, hello.version);
    logger.info({ agent: hello.name, stage: hello.stage }, 'agent enrolled');
    registry.enrolled(agent);
    return undefined;
  };

  const start = (ws: WebSocket, hello: Hello, ip: string) => {
    const agent = registry.store.agent(hello.name);
    if (!agent) return;
    if (agent.stage !== hello.stage) agent.stage = hello.stage;
    const mux = new Mux((frame, done) => {
      if (ws.readyState !== ws.OPEN) done(new Error('the tunnel is closed'));
      else ws.send(frame, { binary: true }, (err) => done(err ?? undefined));
    });
    const tunnel: Tunnel = {
      mux,
      connectedAt: new Date().toISOString(),
      version: hello.version,
      ip,
      close: (code, reason) => {
        ws.close(code, reason);
        setTimeout(() => ws.terminate(), 2_000).unref();
      },
      control: (message) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(message)),
    };
    let lastHeard = Date.now();
    const heard = () => {
      lastHeard = Date.now();
      registry.seen(hello.name);
    };
    const pinger = setInterval(() => {
      if (Date.now() - lastHeard > PING_TIMEOUT_MS) {
        logger.warn({ agent: hello.name }, 'agent tunnel silent: closing it');
        ws.terminate();
        return;
      }
      ws.ping();
    }, PING_INTERVAL_MS);
    pinger.unref();
    ws.on('pong', heard);
    ws.on('message', (data, binary) => {
      heard();
      if (!binary) {
        // The one message an agent sends after its hello: a call it refused (it logged it as well).
        const message = parseRefusedCall(text(data));
        if (message) logger.warn({ agent: hello.name, call: message }, 'the agent refused a call outside its allowlist');
        return;
      }
      // ws hands a binary message over as a Buffer of its own (binaryType nodebuffer): no copy.
      if (!Buffer.isBuffer(data) || !mux.receive(data)) {
        logger.warn({ agent: hello.name, ip }, 'agent broke the tunnel protocol: closing it');
        ws.close(CLOSE.PROTOCOL, 'protocol error');
      }
    });
    ws.once('close', (code) => {
      clearInterval(pinger);
      live.delete(ws);
      registry.offline(hello.name, tunnel, `tunnel closed (${code})`);
    });
    ws.send(JSON.stringify({ type: 'welcome', calls: registry.calls }));
    registry.online(agent, tunnel);
  };

  const handshake = (ws: WebSocket, ip: string) => {
    live.add(ws);
    ws.on('error', (err) => logger.debug({ ip, err: err.message }, 'agent tunnel error'));
    ws.once('close', () => live.delete(ws));
    const nonce = newNonce();
    const timer = setTimeout(() => refuse(ws, ip, undefined, 'no hello in time'), HELLO_TIMEOUT_MS);
    timer.unref();
    ws.once('message', (data, binary) => {
      clearTimeout(timer);
      if (binary || size(data) > MAX_HELLO) return refuse(ws, ip, undefined, 'expected a hello message');
      const hello = parseHello(text(data));
      if (typeof hello === 'string') return refuse(ws, ip, undefined, hello);
      const refusal = admit(hello, nonce);
      if (refusal) return refuse(ws, ip, hello.name, refusal);
      start(ws, hello, ip);
    });
    ws.send(JSON.stringify({ type: 'challenge', nonce, version }));
  };

  return {
    endpoint: 'agents',
    url: CONNECT_PATH,
    handle(request: IncomingMessage, socket: Duplex, head: Buffer, ip: string) {
      if (refusals.blocked(ip)) {
        logger.warn({ ip }, 'refused an agent connection: too many refused handshakes from this address');
        socket.end('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 60\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        socket.destroy();
        return;
      }
      server().then(
        (wss) => wss.handleUpgrade(request, socket, head, (ws) => handshake(ws, ip)),
        (err: Error) => {
          logger.error({ err: err.message }, 'cannot serve agent connections');
          socket.destroy();
        },
      );
    },
    close() {
      for (const ws of live) ws.terminate();
      void wss?.then((s) => s.close());
    },
  };
}
