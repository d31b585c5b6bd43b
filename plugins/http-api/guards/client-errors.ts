// The service's own answer to a request Node cannot parse or that took too long to arrive
// (docs/http-api.md#malformed-requests-and-timeouts): the JSON error envelope like every other error,
// `Connection: close` because the connection ends with it, no body for HEAD, and 400, 408 or 431 by
// cause. A connection that still owes answers to complete requests sent before the bad one answers
// them first, in order: the socket is never cut while a response is in flight.
// node:http's values come through process.getBuiltinModule: an ES import of it loads Node's bundled undici
// (docs/performance.md#memory).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../envelope.js';

/** A socket left open after its error answer is destroyed this long after, whatever the peer does. */
export const LINGER_MS = 2000;

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
  bytesParsed?: number;
}

interface Answer {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

function answerFor(err: ClientError): Answer {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'TW_ERR_HTTP_HEADERS_TOO_LARGE', message: 'request headers are larger than 16384 bytes' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'TW_ERR_HTTP_REQUEST_TIMEOUT', message: 'the request did not arrive in time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'TW_ERR_HTTP_BODY_TOO_LARGE', message: 'request chunk extensions are too large' };
    default: {
      const reason = (err as { reason?: unknown }).reason;
      const detail = typeof reason === 'string' && reason !== '' ? reason : (err.code ?? 'unreadable');
      return { status: 400, code: 'TW_ERR_HTTP_BAD_REQUEST', message: `malformed HTTP request: ${detail}` };
    }
  }
}

/**
 * Whether the request that failed to parse was a HEAD, judged from the bytes Node was parsing: the
 * head that begins after the last blank line before the error. A body sent by an earlier pipelined
 * request can hide it; the answer then has a body, which is the safe side for a client reading it.
 */
export function isHeadRequest(err: ClientError): boolean {
  const packet = err.rawPacket;
  if (!packet) return false;
  const parsed = Math.min(err.bytesParsed ?? packet.length, packet.length);
  const before = packet.subarray(0, parsed).toString('latin1');
  const start = before.lastIndexOf('\r\n\r\n');
  const head = start === -1 ? before : before.slice(start + 4);
  return /^\s*HEAD[ \t]/.test(head);
}

export function rawErrorResponse(answer: Answer, head: boolean): string {
  const body = JSON.stringify(errorBody(answer.message, answer.code));
  const lines = [
    `HTTP/1.1 ${answer.status} ${process.getBuiltinModule('node:http').STATUS_CODES[answer.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Date: ${new Date().toUTCString()}`,
  ];
  return `${lines.join('\r\n')}\r\n\r\n${head ? '' : body}`;
}

/** Connections the server itself is closing, whichever server: a socket belongs to one. */
const closing = new WeakSet<Socket>();

/** Whether the server, not the client, is closing this connection (a run cut by it is not the client's doing). */
export function closedByServer(socket: Socket | null | undefined): boolean {
  return socket !== null && socket !== undefined && closing.has(socket);
}

/**
 * Responses each connection still owes, in the order Node will write them, and the connections the
 * server itself is closing (so a run cut by the server is not reported as the client's doing).
 */
export class ConnectionLedger {
  readonly #owed = new Map<Socket, { req: IncomingMessage; res: ServerResponse }[]>();

  /** For the server's 'request' event. */
  readonly track = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    const list = this.#owed.get(socket) ?? [];
    list.push({ req, res });
    this.#owed.set(socket, list);
    const done = () => {
      const now = this.#owed.get(socket)?.filter((entry) => entry.res !== res) ?? [];
      if (now.length === 0) this.#owed.delete(socket);
      else this.#owed.set(socket, now);
    };
    res.once('finish', done);
    res.once('close', done);
  };

  /** Every connection with a response in flight is about to be cut (shutdown). */
  closingAll(): void {
    for (const socket of this.#owed.keys()) closing.add(socket);
  }

  /** fastify's `clientErrorHandler` (Node's 'clientError'). */
  readonly onClientError = (error: Error, socket: Socket): void => {
    const err = error as ClientError;
    if (closing.has(socket)) return; // a second error from the same dead parser
    closing.add(socket);
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = answerFor(err);
    const owed = this.#owed.get(socket) ?? [];
    // A request whose body never finished arriving (the timeout) is answered through its own
    // response, which Node writes after those before it; `Connection: close` ends the connection.
    const unfinished = owed.find((entry) => !entry.req.complete && !entry.res.headersSent);
    if (unfinished) {
      const body = JSON.stringify(errorBody(answer.message, answer.code));
      unfinished.res.writeHead(answer.status, {
        connection: 'close',
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      unfinished.res.end(body);
      return;
    }
    this.#answerLast(socket, answer, isHeadRequest(err));
  };

  /**
   * Node's 'connect' (a CONNECT request): without a listener Node drops the connection unanswered.
   * The API tunnels nothing: 405 with the envelope, and the connection closes.
   */
  readonly onConnect = (_req: IncomingMessage, socket: Socket): void => {
    closing.add(socket);
    this.#answerLast(socket, { status: 405, code: 'TW_ERR_HTTP_METHOD', message: 'method CONNECT not allowed' }, false);
  };

  /** Writes the connection's last answer once the answers it owes are out, then closes it. */
  #answerLast(socket: Socket, answer: Answer, head: boolean): void {
    let answered = false;
    this.#afterOwed(socket, () => {
      if (answered) return;
      answered = true;
      if (socket.destroyed || !socket.writable) return;
      // FIN after the answer, then keep reading (and discarding) until the peer closes: closing with
      // unread input would reset the connection and could destroy the answer in flight.
      socket.end(rawErrorResponse(answer, head));
      const linger = setTimeout(() => socket.destroy(), LINGER_MS);
      linger.unref();
      socket.once('close', () => clearTimeout(linger));
    });
  }

  /** Runs `then` once every response the connection owes has been written. */
  #afterOwed(socket: Socket, then: () => void): void {
    const owed = this.#owed.get(socket);
    if (!owed || owed.length === 0) {
      then();
      return;
    }
    const last = owed[owed.length - 1] as { res: ServerResponse };
    const next = () => setImmediate(() => this.#afterOwed(socket, then));
    if (last.res.writableFinished || last.res.destroyed) next();
    else {
      last.res.once('finish', next);
      last.res.once('close', next);
    }
  }
}
