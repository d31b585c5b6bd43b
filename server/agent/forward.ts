// The agent's side of the tunnel's streams (docs/fleet.md#what-crosses): each stream the controller opens is an
// HTTP/1.1 connection, parsed by Node's own HTTP server (fed the stream, listening on nothing). A call is
// forwarded to the local engine only when the socket-proxy allowlist of the controller's mode has it
// (plugins/docker/engine/socket-proxy.ts, docs/security.md "Engine endpoints per mode"); anything else is
// answered 403, logged here and reported to the controller, which logs it too. Upgrades (a hijacked stream)
// are never forwarded. Bodies and answers stream both ways: pulls' progress, archives, exec output.
import type http from 'node:http';
import type https from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../core/index.js';
import type { EngineTransportOptions } from '../../plugins/docker/engine/transport.js';
import { callAllowed, endpointTemplate } from '../../plugins/docker/engine/socket-proxy.js';

/** Headers of one hop only: never forwarded in either direction. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

function forwardHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP.has(name)) out[name] = value;
  return out;
}

export interface Forwarder {
  /** Serves one stream of the tunnel. */
  serve(stream: Duplex): void;
  setCalls(calls: readonly string[]): void;
  close(): void;
}

export function createForwarder(engine: EngineTransportOptions, logger: Logger, refused: (method: string, path: string) => void): Forwarder {
  let calls: readonly string[] = [];
  const { endpoint } = engine;
  const secure = endpoint.kind === 'tcp' && endpoint.protocol === 'https';
  // Through getBuiltinModule, as the engine transport does: an ES import of node:http loads Node's bundled
  // fetch and WebSocket client, megabytes an idle agent never uses (docs/performance.md#memory).
  const http: typeof import('node:http') = process.getBuiltinModule('node:http');
  const https: typeof import('node:https') | undefined = secure ? process.getBuiltinModule('node:https') : undefined;
  const agent = https ? new https.Agent({ keepAlive: true, ...engine.tls }) : new http.Agent({ keepAlive: true });
  const target =
    endpoint.kind === 'socket' ? { socketPath: endpoint.socketPath } : endpoint.kind === 'tcp' ? { host: endpoint.host, port: endpoint.port } : undefined;
  if (!target) throw new Error('the agent reaches its engine over a socket or TCP');

  const server = http.createServer({ maxHeaderSize: 16 * 1024 }, (request, response) => {
    const method = request.method ?? 'GET';
    const path = request.url ?? '/';
    if (!callAllowed(calls, method, path)) {
      const call = `${method} ${endpointTemplate(path)}`;
      logger.warn({ call, allowed: calls }, 'refused a call outside the allowlist of the controller\'s mode');
      refused(method, endpointTemplate(path));
      // Not the engine's JSON error: the controller reads it as a proxy's refusal naming the call (docs/errors.md).
      response.writeHead(403, { 'content-type': 'text/plain' }).end(`tidewatch agent: ${call} is not allowed\n`);
      request.resume();
      return;
    }
    const upstream = (https ?? http).request(
      { ...target, agent, method, path, headers: forwardHeaders(request.headers) },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, forwardHeaders(answer.headers));
        answer.pipe(response);
        answer.once('error', () => response.destroy());
      },
    );
    upstream.once('error', (err) => {
      logger.warn({ call: `${method} ${endpointTemplate(path)}`, err: err.message }, 'the local engine did not answer');
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `agent: engine did not answer: ${err.message}` }));
      else response.destroy();
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  server.on('upgrade', (request, socket: Duplex) => {
    logger.warn({ call: `${request.method} ${endpointTemplate(request.url ?? '/')}` }, 'refused a connection upgrade over the tunnel');
    socket.destroy();
  });
  server.on('clientError', (_err, socket: Duplex) => socket.destroy());
  return {
    serve: (stream) => server.emit('connection', stream),
    setCalls: (next) => {
      calls = [...next];
    },
    close: () => {
      server.close();
      agent.destroy();
    },
  };
}
