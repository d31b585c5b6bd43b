// Small pieces both remote clients share: a per-request deadline tied to the run's signal, and a
// bounded body read (a hostile or broken server must not make us buffer without limit).
import { TidewatchError } from '../../core/index.js';

/** The run's signal and a per-request timeout, as one signal. */
export function requestSignal(runSignal: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([runSignal, AbortSignal.timeout(timeoutMs)]);
}

/** A readable message for a failed request: timeouts and aborts say so instead of "fetch failed". */
export function describeRequestError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
    if (err.name === 'AbortError') return 'aborted';
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return `${err.message}: ${cause.message}`;
    return err.message;
  }
  return String(err);
}

/** Reads a body up to `limit` bytes; throws beyond it. */
export async function readLimited(body: AsyncIterable<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) throw new TidewatchError('TW_ERR_GIT', `response larger than ${limit} bytes`, 502);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
