// Image facts kept from one discovery to the next while the engine reports every change to its images
// (docs/performance.md#image-facts-between-runs). An image id names its content, so its labels never change;
// its repo digests change only by a pull, push, tag, untag, load, import or removal, and the Engine reports
// each of those as an image event. While a `GET /events` stream filtered to image events is open, a
// discovery reuses what the last one inspected; any image event, and any end of the stream, drops it all.
//
// The stream asks for the events of the last minute too: the Engine hands those and the live ones over in
// one subscription, so an event that happens while the stream is opening is never missed. An entry is also
// dropped once it is older than IMAGE_FACTS_MAX_AGE_MS, in case a stream to a remote engine stalls without
// ending. Podman's engine is not cached (docs/podman.md): whether it reports events depends on its settings.
import type http from 'node:http';
import type { EngineClient } from '../engine/client.js';
import { isSocketProxyRefusal, type SocketProxyRefusal } from '../engine/transport.js';
import type { ImageFacts } from '../target.js';

/** The longest an image's facts are reused without being inspected again, whatever the stream says. */
export const IMAGE_FACTS_MAX_AGE_MS = 5 * 60_000;

/** How far back the stream's first events go: covers the moment it takes the Engine to subscribe it. */
const REPLAY_SECONDS = 60;

interface Entry {
  readonly facts: ImageFacts;
  readonly at: number;
}

/** One discovery's use of the cache: what it may reuse, and what it learned, kept only if nothing changed meanwhile. */
export interface ImageFactsLease {
  get(imageId: string): ImageFacts | undefined;
  set(imageId: string, facts: ImageFacts): void;
  /** The facts this discovery used become the cache (images no container runs any more fall out). */
  commit(): void;
}

export class ImageFactsCache {
  readonly #docker: EngineClient;
  readonly #now: () => number;
  #entries = new Map<string, Entry>();
  #stream: http.IncomingMessage | undefined;
  #opening: Promise<void> | undefined;
  /** Ends a stream still opening (an engine or proxy that never answers) when the cache is closed. */
  readonly #closing = new AbortController();
  /** Bumped by every event and every end of the stream: a lease taken before may not store anything. */
  #generation = 0;
  #closed = false;
  /** Told once when a socket proxy refuses the stream (EVENTS not allowed, docs/security.md): runs then inspect every image. */
  #onRefused: ((err: SocketProxyRefusal) => void) | undefined;

  constructor(docker: EngineClient, now: () => number = Date.now, onRefused?: (err: SocketProxyRefusal) => void) {
    this.#docker = docker;
    this.#now = now;
    this.#onRefused = onRefused;
  }

  /** True while the event stream is open: only then is anything reused or stored. */
  get live(): boolean {
    return this.#stream !== undefined;
  }

  /** How many images the cache holds now. */
  get size(): number {
    return this.#entries.size;
  }

  /** How many images a discovery starting now could reuse: none without the stream, none too old. */
  get reusable(): number {
    if (!this.live) return 0;
    const oldest = this.#oldest();
    let count = 0;
    for (const entry of this.#entries.values()) if (entry.at >= oldest) count++;
    return count;
  }

  /** Facts read before this are inspected again. */
  #oldest(): number {
    return this.#now() - IMAGE_FACTS_MAX_AGE_MS;
  }

  /** Opens the event stream unless it is open or opening; never waits, never throws (a failure is retried next time). */
  watch(): void {
    if (this.#closed || this.#stream || this.#opening) return;
    const since = Math.floor(this.#now() / 1000) - REPLAY_SECONDS;
    this.#opening = this.#docker
      .imageEvents(since, this.#closing.signal)
      .then((stream) => this.#attach(stream))
      .catch((err: unknown) => {
        if (isSocketProxyRefusal(err)) {
          this.#onRefused?.(err);
          this.#onRefused = undefined;
        }
        this.#invalidate();
      })
      .finally(() => (this.#opening = undefined));
  }

  #attach(stream: http.IncomingMessage): void {
    if (this.#closed) {
      stream.destroy();
      return;
    }
    // The stream must not keep an embedding process alive; close() ends it for good.
    stream.socket?.unref();
    this.#invalidate();
    this.#stream = stream;
    stream.on('data', () => this.#invalidate());
    const ended = () => {
      if (this.#stream !== stream) return;
      this.#stream = undefined;
      this.#invalidate();
    };
    stream.once('end', ended);
    stream.once('close', ended);
    stream.once('error', ended);
  }

  #invalidate(): void {
    this.#generation++;
    this.#entries = new Map();
  }

  /** A lease for one discovery, or undefined while the stream is not open. */
  lease(): ImageFactsLease | undefined {
    if (!this.live) return undefined;
    const generation = this.#generation;
    const oldest = this.#oldest();
    const current = this.#entries;
    const used = new Map<string, Entry>();
    return {
      get: (imageId) => {
        const entry = current.get(imageId);
        if (!entry || entry.at < oldest) return undefined;
        used.set(imageId, entry);
        return entry.facts;
      },
      set: (imageId, facts) => {
        used.set(imageId, { facts, at: this.#now() });
      },
      commit: () => {
        // An event since the lease was taken may concern what this discovery inspected before it arrived.
        if (this.live && this.#generation === generation) this.#entries = used;
      },
    };
  }

  close(): void {
    this.#closed = true;
    this.#closing.abort();
    this.#stream?.destroy();
    this.#stream = undefined;
    this.#invalidate();
  }
}
