// Counts the regular files' bytes of a tar as it streams past (the `bytes` of docs/snapshots.md), reading only
// the 512-byte headers and skipping the data by arithmetic: the bytes themselves are never copied or parsed.
// A pax header's `size=` (files over 8 GiB) applies to the entry after it; GNU long-name entries carry data.
import { Transform, type TransformCallback } from 'node:stream';

const BLOCK = 512;
const REGULAR = new Set(['0', '\0', '7']);

/** The size field: octal text, or GNU base-256 when its first byte has the high bit. */
export function headerSize(header: Buffer): number {
  const field = header.subarray(124, 136);
  if ((field[0]! & 0x80) !== 0) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const text = field.toString('latin1').replace(/[\0 ]+$/g, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function paxSize(records: Buffer): number | undefined {
  const match = /(?:^|\n)\d+ size=(\d+)\n/.exec(records.toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

export class TarByteCounter extends Transform {
  /** The sum of the regular files' sizes seen so far. */
  regularBytes = 0;
  #header = Buffer.alloc(0);
  /** Bytes of entry data (padded) still to pass before the next header. */
  #skip = 0;
  /** A pax extended header's data being collected. */
  #pax: Buffer[] | undefined;
  #paxSize: number | undefined;

  constructor() {
    super({ highWaterMark: 4 * 1024 * 1024 });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, chunk.length - offset);
        if (this.#pax) this.#pax.push(chunk.subarray(offset, offset + n));
        this.#skip -= n;
        offset += n;
        if (this.#skip === 0 && this.#pax) {
          this.#paxSize = paxSize(Buffer.concat(this.#pax));
          this.#pax = undefined;
        }
        continue;
      }
      const need = BLOCK - this.#header.length;
      const take = chunk.subarray(offset, offset + need);
      this.#header = this.#header.length === 0 ? Buffer.from(take) : Buffer.concat([this.#header, take]);
      offset += take.length;
      if (this.#header.length === BLOCK) this.#onHeader(this.#header);
      if (this.#header.length === BLOCK) this.#header = Buffer.alloc(0);
    }
    done(null, chunk);
  }

  #onHeader(header: Buffer): void {
    if (header.every((b) => b === 0)) return; // the end-of-archive blocks
    const type = String.fromCharCode(header[156]!);
    const size = type === 'x' || type === 'g' ? headerSize(header) : (this.#paxSize ?? headerSize(header));
    if (type !== 'x' && type !== 'g') this.#paxSize = undefined;
    if (REGULAR.has(type)) this.regularBytes += size;
    if (type === 'x') this.#pax = [];
    this.#skip = Math.ceil(size / BLOCK) * BLOCK;
    if (this.#skip === 0 && this.#pax) {
      this.#paxSize = undefined;
      this.#pax = undefined;
    }
  }
}
