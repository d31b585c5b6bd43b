// Connection upgrades other plugins serve on the API's port (core/http-routes.ts, docs/plugins.md#http-routes):
// the agents' WebSocket tunnel (docs/fleet.md). Fastify routes never see an upgrade; the Node server's
// `upgrade` event does. Each request is counted by the API's rate limiter like any other, a request with an
// `Origin` is refused (no browser opens these: a page may not ride a tunnel), an unknown path is closed, and
// only then does the contributed handler take the socket over and authenticate its peer itself.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpUpgradeDefinition, Logger } from '../../core/index.js';
import { normaliseIp } from './guards/client-ip.js';
import type { SlidingWindowLimiter } from './guards/rate-limit.js';

function refuse(socket: Duplex, status: number, reason: string, extra = ''): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
  socket.destroy();
}

export function serveUpgrades(
  server: Server,
  upgrades: readonly HttpUpgradeDefinition[],
  limiter: SlidingWindowLimiter | undefined,
  logger: Logger,
): () => void {
  const byPath = new Map(upgrades.map((u) => [u.url, u]));
  // An upgraded socket is no longer the HTTP server's to close, yet its close waits for it: cut at shutdown.
  const open = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    const ip = normaliseIp(request.socket.remoteAddress ?? '');
    const decision = limiter?.take(ip);
    if (decision && !decision.allowed) {
      refuse(socket, 429, 'Too Many Requests', `Retry-After: ${decision.retryAfterSeconds}\r\n`);
      return;
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    const route = request.method === 'GET' ? byPath.get(path) : undefined;
    if (!route) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    if (request.headers.origin !== undefined) {
      logger.warn({ ip, path, origin: String(request.headers.origin).slice(0, 200) }, 'refused a connection upgrade from a browser origin');
      refuse(socket, 403, 'Forbidden');
      return;
    }
    route.handle(request, socket, head, ip);
  });
  return () => {
    for (const socket of open) socket.destroy();
  };
}
