// HTTP/1.1 over a raw TCP socket (net.connect), for what fetch cannot send or see: malformed requests,
// pipelining, slow writes, and whether the server closed the connection after an answer.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Lower-case names; the last value of a repeated header. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface RawExchange {
  readonly responses: RawResponse[];
  /** The server ended or reset the connection (within the wait). */
  readonly closed: boolean;
  /** Milliseconds from the first write to the close, or to the wait's end. */
  readonly ms: number;
  /** Bytes that did not parse as a response. */
  readonly trailing: string;
}

/**
 * Parses consecutive responses. `headRequests[i]` says the i-th answered request was a HEAD (no body
 * whatever Content-Length says); an incomplete last response is left in `trailing`.
 */
export function parseResponses(text: string, headRequests: readonly boolean[] = []): { responses: RawResponse[]; trailing: string } {
  const responses: RawResponse[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!m) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const head = headRequests[responses.length] === true;
    const status = Number(m[1]);
    const bodyless = head || status === 204 || status === 304;
    const length = bodyless ? 0 : Number(headers['content-length'] ?? NaN);
    if (Number.isNaN(length)) {
      // Chunked or close-delimited: only the whole rest can be its body.
      responses.push({ status, headers, body: rest.slice(end + 4) });
      rest = '';
      break;
    }
    if (rest.length < end + 4 + length) break;
    responses.push({ status, headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return { responses, trailing: rest };
}

export interface RawOptions {
  /** How long to wait for the server to close, in ms. */
  readonly waitMs?: number;
  /** Resolve as soon as this many complete responses arrived (the connection may stay open). */
  readonly responses?: number;
  readonly headRequests?: readonly boolean[];
  /** Writes `chunks` one by one with this delay between them (slow clients). */
  readonly chunkDelayMs?: number;
}

/** Sends the bytes (one chunk, or several apart) and collects what comes back. */
export function rawExchange(port: number, payload: string | Buffer | (string | Buffer)[], options: RawOptions = {}): Promise<RawExchange> {
  const chunks = Array.isArray(payload) ? payload : [payload];
  const waitMs = options.waitMs ?? 5000;
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let text = '';
    let settled = false;
    let timers: NodeJS.Timeout[] = [];
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      const { responses, trailing } = parseResponses(text, options.headRequests);
      socket.destroy();
      resolve({ responses, closed, ms: Date.now() - started, trailing });
    };
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (options.responses !== undefined && parseResponses(text, options.headRequests).responses.length >= options.responses) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    timers.push(setTimeout(() => finish(false), waitMs));
    socket.once('connect', () => {
      chunks.forEach((chunk, i) => {
        const write = () => {
          if (!socket.destroyed) socket.write(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
        };
        if (i === 0 || !options.chunkDelayMs) write();
        else timers = [...timers, setTimeout(write, i * options.chunkDelayMs)];
      });
    });
  });
}

export function portOf(url: string): number {
  return Number(new URL(url).port);
}
