// A loopback HTTP server that records every request a notification service makes and answers as the
// test scripts it (the real API's shape: a status, a JSON or text body).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer } from './loopback-server.js';

export interface Captured {
  readonly method: string;
  /** The path, percent-decoded. */
  readonly path: string;
  readonly rawPath: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON, when it is. */
  readonly json: unknown;
}

export interface Answer {
  readonly status?: number;
  readonly body?: string | object;
  /** Extra response headers (a redirect's `location`, a challenge's `www-authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
}

export class CaptureServer extends LoopbackHttpServer {
  readonly requests: Captured[] = [];
  answer: (req: Captured) => Answer = () => ({ status: 200 });

  /** `http://127.0.0.1:<port>`. */
  get origin(): string {
    return `http://${this.host}`;
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const captured: Captured = {
        method: req.method ?? '',
        path: decodeURIComponent(url.pathname),
        rawPath: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        json,
      };
      this.requests.push(captured);
      const a = this.answer(captured);
      const isJson = typeof a.body === 'object';
      res.writeHead(a.status ?? 200, { 'content-type': isJson ? 'application/json' : 'text/plain', ...a.headers });
      res.end(a.body === undefined ? '' : isJson ? JSON.stringify(a.body) : a.body);
    });
  }
}

/** Asserts a promise rejects and that its message holds none of `secrets`; resolves to the message. */
export async function rejectsWithout(promise: Promise<unknown>, secrets: readonly string[]): Promise<string> {
  try {
    await promise;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    for (const s of secrets) if (message.includes(s)) throw new Error(`the error leaks a secret: ${message}`);
    return message;
  }
  throw new Error('expected a rejection');
}

export const never = (): AbortSignal => new AbortController().signal;
