// Requests too malformed to parse, and slow ones, for the fuzz suite's raw-socket phases: each is sent on
// a connection of its own, and whatever comes back must be a documented answer that announces the close.
import type { Prng } from './prng.js';

const REQUEST_LINES = ['GET /livez HTTP/1.1', 'POST /v1/check HTTP/1.1', 'HEAD /v1/events HTTP/1.1', 'GET /swagger/doc.json HTTP/1.1'];

/** A complete but unparseable request (or plain garbage), and whether it was a HEAD. */
export function malformedRequest(rng: Prng): { bytes: Buffer; head: boolean; label: string } {
  const line = rng.pick(REQUEST_LINES);
  const head = line.startsWith('HEAD');
  const make = (label: string, text: string | Buffer) => ({ bytes: typeof text === 'string' ? Buffer.from(text, 'latin1') : text, head, label });
  switch (rng.int(0, 11)) {
    case 0:
      return make('header without a colon', `${line}\r\nHost: x\r\nBad header\r\n\r\n`);
    case 1:
      return make('latin-1 byte in the path', `${line.replace(' HTTP', '\xe9 HTTP')}\r\nHost: x\r\n\r\n`);
    case 2:
      return make('headers above 16 KiB', `${line}\r\nHost: x\r\nX-Big: ${'b'.repeat(rng.int(17_000, 40_000))}\r\n\r\n`);
    case 3:
      return make('Content-Length and Transfer-Encoding', `${line}\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    case 4:
      return make('two different Content-Lengths', `${line}\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`);
    case 5:
      return make('bad chunk size', `POST /v1/check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`);
    case 6:
      return make('NUL in a header value', `${line}\r\nHost: x\r\nX-A: a\0b\r\n\r\n`);
    case 7:
      return make('bad HTTP version', `${line.replace('HTTP/1.1', rng.pick(['HTTP/9.9', 'HTTP/1.x', 'HTTPS/1.1', 'http/1.1']))}\r\nHost: x\r\n\r\n`);
    case 8:
      return make('random bytes ending in a blank line', Buffer.concat([rng.bytes(rng.int(1, 600)), Buffer.from('\r\n\r\n')]));
    case 9:
      return make('obsolete line folding', `${line}\r\nHost: x\r\nX-Fold: a\r\n  b\r\n\r\n`);
    case 10:
      return make('space before the colon', `${line}\r\nHost : x\r\n\r\n`);
    default:
      return make('a bare LF request', `${line}\nHost: x\n\n`);
  }
}

/** A slowloris: the request line, then a header line every `intervalMs`, never the blank line. */
export function slowHeaders(count: number): string[] {
  return ['GET /livez HTTP/1.1\r\nHost: x\r\n', ...Array.from({ length: count }, (_, i) => `X-Slow-${i}: ${'s'.repeat(20)}\r\n`)];
}
