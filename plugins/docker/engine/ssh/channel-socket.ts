// An SSH channel as the socket Node's http client and agent expect (ssh/tunnel.ts). ssh2's channel is a
// Duplex of its own kind: its destroy() sends a close and returns without the standard `destroyed` state or
// 'close' event, its writes after the connection dropped never call back, and it emits 'close' only once its
// data was read to the end. Node's http relies on all three (an aborted call, a kept-alive socket that died),
// so each channel is wrapped in a plain Duplex that is destroyed when the channel or its connection ends.
import { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';

export class ChannelSocket extends Duplex {
  readonly #channel: ClientChannel;

  constructor(channel: ClientChannel) {
    super({ allowHalfOpen: false });
    this.#channel = channel;
    channel.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) channel.pause();
    });
    channel.once('end', () => this.push(null));
    channel.once('close', () => this.destroy());
    channel.on('error', (err: Error) => this.destroy(err));
  }

  override _read(): void {
    this.#channel.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    // ssh2's own state of the channel's sending side ('open', 'eof', 'closing', 'closed').
    if ((this.#channel as unknown as { outgoing?: { state?: string } }).outgoing?.state !== 'open') {
      callback(new Error('the SSH channel to the engine is closed'));
      return;
    }
    this.#channel.write(chunk, encoding, callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.#channel.end();
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.#channel.close();
    callback(err);
  }

  // The socket methods http calls; the TCP connection under the channel has SSH keepalives of its own.
  setKeepAlive(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setTimeout(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}
