// The agent tunnel's framing (docs/fleet.md#what-crosses): many byte streams over one WebSocket, each one
// HTTP/1.1 connection to the agent's engine, so every Engine call (JSON, pulls' progress, logs, archives,
// exec output) crosses as the runtime sends it on a socket. A binary WebSocket message is one frame:
//
//   byte 0: type (1 OPEN, 2 DATA, 3 END, 4 RESET)   bytes 1-4: stream id (uint32, big-endian)   rest: payload
//
// Only the controller opens streams. DATA carries at most MAX_DATA bytes; END half-closes the sender's side;
// RESET drops the stream at once (its payload: a short reason). A stream's write completes once its frame
// is handed to the WebSocket's socket, so a slow tunnel slows its writers instead of growing a buffer. Used
// by both ends: the controller (plugins/agents/tunnel.ts) and the agent (server/agent/).
import { Duplex } from 'node:stream';

export const FRAME = { OPEN: 1, DATA: 2, END: 3, RESET: 4 } as const;
/** Largest DATA payload; the WebSocket's message limit is a little above it (protocol.ts). */
export const MAX_DATA = 64 * 1024;
/** Streams open at once on one tunnel; an OPEN beyond it is reset. */
export const MAX_STREAMS = 256;

export type SendFrame = (frame: Buffer, done: (err?: Error) => void) => void;

function frame(type: number, id: number, payload?: Buffer): Buffer {
  const head = Buffer.allocUnsafe(5);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(id, 1);
  return payload && payload.length > 0 ? Buffer.concat([head, payload]) : head;
}

/** One stream of a tunnel: a Duplex with the socket methods Node's http client and server call. */
export class MuxStream extends Duplex {
  #remoteEnded = false;
  #localEnded = false;
  #reset = false;

  constructor(
    readonly id: number,
    readonly mux: Mux,
  ) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.mux.sendData(this.id, chunk, callback);
  }

  // Node's http client and server cork the socket for a tick and write a chunk's size, the chunk and its CRLF
  // apart (chunked encoding), headers before a body: what piled up crosses as one DATA frame, not one each.
  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.mux.sendData(this.id, chunks.length === 1 ? (chunks[0] as { chunk: Buffer }).chunk : Buffer.concat(chunks.map((c) => c.chunk)), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#localEnded = true;
    this.mux.send(frame(FRAME.END, this.id), () => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#reset && !this.mux.closed && !(this.#localEnded && this.#remoteEnded)) {
      this.mux.send(frame(FRAME.RESET, this.id, Buffer.from(error ? 'error' : 'closed')), () => undefined);
    }
    this.mux.forget(this.id);
    callback(error);
  }

  /** @internal frames from the other end */
  receive(type: number, payload: Buffer): void {
    if (type === FRAME.DATA) this.push(payload);
    else if (type === FRAME.END) {
      this.#remoteEnded = true;
      this.push(null);
    } else if (type === FRAME.RESET) {
      this.#reset = true;
      this.destroy(new Error(`the tunnel stream was reset: ${payload.toString('utf8').slice(0, 100)}`));
    }
  }

  // What Node's http client, its keep-alive agent and its server call on a socket: nothing to do on a stream.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(_ms: number, listener?: () => void): this {
    if (listener) this.once('timeout', listener);
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/** The streams of one tunnel. `onOpen` is the agent's: the controller asked for a new stream. */
export class Mux {
  readonly #streams = new Map<number, MuxStream>();
  #nextId = 1;
  #closed = false;

  constructor(
    readonly send: SendFrame,
    readonly onOpen?: (stream: MuxStream) => void,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** A new stream to the other end (the controller's side). */
  open(): MuxStream {
    if (this.#closed) throw new Error('the tunnel is closed');
    const id = this.#nextId;
    this.#nextId = this.#nextId >= 0xffff_fff0 ? 1 : this.#nextId + 1;
    const stream = new MuxStream(id, this);
    this.#streams.set(id, stream);
    this.send(frame(FRAME.OPEN, id), () => undefined);
    return stream;
  }

  sendData(id: number, chunk: Buffer, callback: (error?: Error | null) => void): void {
    if (this.#closed) {
      callback(new Error('the tunnel is closed'));
      return;
    }
    let offset = 0;
    const next = (err?: Error) => {
      if (err || offset >= chunk.length) {
        callback(err);
        return;
      }
      const part = chunk.subarray(offset, offset + MAX_DATA);
      offset += part.length;
      this.send(frame(FRAME.DATA, id, part), next);
    };
    next();
  }

  /** One binary message from the WebSocket; false for a frame that breaks the protocol (the caller closes). */
  receive(data: Buffer): boolean {
    if (data.length < 5) return false;
    const type = data.readUInt8(0);
    const id = data.readUInt32BE(1);
    const payload = data.subarray(5);
    if (type === FRAME.OPEN) {
      if (!this.onOpen || this.#streams.has(id) || payload.length > 0) return false;
      const stream = new MuxStream(id, this);
      if (this.#streams.size >= MAX_STREAMS) {
        this.send(frame(FRAME.RESET, id, Buffer.from('too many streams')), () => undefined);
        return true;
      }
      this.#streams.set(id, stream);
      this.onOpen(stream);
      return true;
    }
    if (type !== FRAME.DATA && type !== FRAME.END && type !== FRAME.RESET) return false;
    if (payload.length > MAX_DATA) return false;
    // A frame for a stream this end already dropped: it crossed our RESET on the wire.
    this.#streams.get(id)?.receive(type, payload);
    return true;
  }

  forget(id: number): void {
    this.#streams.delete(id);
  }

  /** The tunnel is gone: every stream ends with this error. */
  close(reason: string): void {
    this.#closed = true;
    for (const stream of [...this.#streams.values()]) stream.destroy(new Error(reason));
    this.#streams.clear();
  }
}
