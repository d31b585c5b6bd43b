// The lifecycle every HTTP server written for the tests shares: listen on an ephemeral loopback port
// (never anything else), and close without waiting for kept-alive clients.
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Listens on 127.0.0.1 with an ephemeral port; resolves to `127.0.0.1:<port>`. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port free right now, for a server another process will bind (a container on the host network).
 * Kept here for the tests that import it from this module; the one copy is test/helpers/ports.ts. */
export { freePort } from './ports.js';

/** Drops open connections (keep-alive clients would hold close() forever) and closes. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A test HTTP server on loopback: subclasses answer requests, the base starts, names and closes it. */
export abstract class LoopbackHttpServer {
  readonly #server: Server = createServer((req, res) => this.handle(req, res));
  #host: string | undefined;

  protected abstract handle(req: IncomingMessage, res: ServerResponse): void;

  /** `127.0.0.1:<port>`, once started. */
  get host(): string {
    if (!this.#host) throw new Error('server not started');
    return this.#host;
  }

  async start(): Promise<this> {
    this.#host = await listenOnLoopback(this.#server);
    return this;
  }

  close(): Promise<void> {
    return closeServer(this.#server);
  }
}
