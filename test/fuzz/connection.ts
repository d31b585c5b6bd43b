// One persistent raw HTTP/1.1 connection for the fuzz suite: requests are sent one at a time, each
// answer is read by its Content-Length, and the connection's fate is recorded, so the suite can tell a
// close the server announced (`Connection: close`) from one that breaks a keep-alive client.
import { connect, type Socket } from 'node:net';
import { parseResponses, type RawResponse } from '../helpers/raw-http.js';

export type Outcome =
  | { readonly kind: 'answered'; readonly response: RawResponse; readonly ms: number; readonly closedAfter: boolean }
  /** The server closed the connection without answering. */
  | { readonly kind: 'closed'; readonly ms: number }
  /** Neither an answer nor a close within the bound. */
  | { readonly kind: 'hung'; readonly ms: number };

export class FuzzConnection {
  readonly #port: number;
  #socket: Socket | undefined;
  #buffer = '';
  #ended = false;
  #wake: (() => void) | undefined;
  #inFlight = false;
  /** The last answer kept the connection (no `Connection: close`). */
  #keptAlive = false;
  /** Closes by the server after an answer that promised to keep the connection: each breaks a keep-alive client. */
  unannouncedCloses = 0;
  /** What the connection carried last (request start, answer status and Connection header), for failure messages. */
  previous = 'nothing (a new connection)';

  constructor(port: number) {
    this.#port = port;
  }

  get open(): boolean {
    return this.#socket !== undefined && !this.#ended;
  }

  async #connect(): Promise<Socket> {
    const socket = connect(this.#port, '127.0.0.1');
    this.#socket = socket;
    this.#buffer = '';
    this.#ended = false;
    // Events of a socket closed earlier must not touch the current one.
    socket.on('data', (d: Buffer) => {
      if (this.#socket !== socket) return;
      this.#buffer += d.toString('latin1');
      this.#wake?.();
    });
    const end = () => {
      if (this.#socket !== socket) return;
      if (!this.#ended && !this.#inFlight && this.#keptAlive) this.unannouncedCloses++;
      this.#ended = true;
      this.#wake?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
    await new Promise<void>((resolve) => {
      socket.once('connect', () => resolve());
      socket.once('error', () => resolve());
    });
    return socket;
  }

  #changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Sends one request (on the open connection, or a new one) and waits at most `boundMs` for its fate. */
  async send(request: Buffer, head: boolean, boundMs: number): Promise<Outcome> {
    if (!this.open) this.previous = 'nothing (a new connection)';
    const socket = this.open ? (this.#socket as Socket) : await this.#connect();
    const started = Date.now();
    this.#inFlight = true;
    this.#keptAlive = false;
    try {
      const outcome = await this.#await(socket, request, head, boundMs, started);
      const answer = outcome.kind === 'answered' ? `${outcome.response.status} connection=${outcome.response.headers['connection'] ?? '-'}` : outcome.kind;
      this.previous = `${JSON.stringify(request.toString('latin1').slice(0, 300))} -> ${answer}`;
      return outcome;
    } finally {
      this.#inFlight = false;
    }
  }

  async #await(socket: Socket, request: Buffer, head: boolean, boundMs: number, started: number): Promise<Outcome> {
    socket.write(request);
    for (;;) {
      const { responses, trailing } = parseResponses(this.#buffer, [head]);
      const response = responses[0];
      if (response) {
        this.#buffer = trailing;
        const ms = Date.now() - started;
        if (!head && response.status === 200 && response.headers['content-length'] === undefined) {
          // A stream (the event stream): the client is done with it.
          this.close();
          return { kind: 'answered', response, ms, closedAfter: false };
        }
        let closedAfter = this.#ended;
        if (response.headers['connection']?.toLowerCase() === 'close' && !closedAfter) {
          // Announced: the close must follow promptly.
          while (!this.#ended && Date.now() - started < boundMs) await this.#changed(100);
          closedAfter = this.#ended;
          this.close();
        } else this.#keptAlive = !closedAfter;
        return { kind: 'answered', response, ms, closedAfter };
      }
      if (this.#ended) {
        this.close();
        return { kind: 'closed', ms: Date.now() - started };
      }
      const left = boundMs - (Date.now() - started);
      if (left <= 0) {
        this.close();
        return { kind: 'hung', ms: Date.now() - started };
      }
      await this.#changed(left);
    }
  }

  close(): void {
    this.#keptAlive = false;
    this.#socket?.destroy();
    this.#socket = undefined;
    this.#ended = true;
  }
}
