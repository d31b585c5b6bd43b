// How long an HTTP-triggered run may take, and what ends it early. The run gets an AbortSignal the
// core honours between targets; the HTTP answer does not wait for the core to notice: at the deadline
// the handler answers 503 at once and the run's remaining work is abandoned (docs/http-api-contract.md §7.1), while the
// target being replaced, if any, still finishes or rolls back inside the core.
import type { FastifyReply } from 'fastify';
import { errors, type RunKind } from '../../core/index.js';
import { closedByServer } from './guards/client-errors.js';
import { httpErrors } from './errors.js';
import type { RequestTimeout } from './query.js';

export class RunDeadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #ended: Promise<never>;
  #fail: (err: Error) => void = () => undefined;
  #onClientClose: (() => void) | undefined;
  readonly #reply: FastifyReply;

  constructor(kind: RunKind, timeout: RequestTimeout, reply: FastifyReply) {
    this.#reply = reply;
    this.#ended = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    // Marked handled here: the rejection still reaches whoever races against it.
    this.#ended.catch(() => undefined);
    this.#timer = setTimeout(() => this.#abort(errors.timeout(kind, timeout.text)), timeout.ms);
    this.#timer.unref();
    this.#onClientClose = () => {
      // `close` also fires after a normal end; only an unfinished response means the client left.
      // The server closing it (shutdown) is not the client's doing (docs/http-api.md#malformed-requests-and-timeouts).
      if (reply.raw.writableEnded) return;
      if (closedByServer(reply.request.raw.socket)) this.#abort(errors.aborted(`${kind} cancelled: the server closed the connection`));
      else this.#abort(httpErrors.clientGone(kind));
    };
    reply.raw.on('close', this.#onClientClose);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The run's result, or the deadline's error if the deadline (or the client) comes first. */
  race<T>(run: Promise<T>): Promise<T> {
    return Promise.race([run, this.#ended]);
  }

  /**
   * From now on the client may leave without cancelling the run (an async update after its 202);
   * the timeout still applies.
   */
  detachClient(): void {
    if (this.#onClientClose) this.#reply.raw.off('close', this.#onClientClose);
    this.#onClientClose = undefined;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.detachClient();
  }

  #abort(reason: Error): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason);
    this.#fail(reason);
  }
}
