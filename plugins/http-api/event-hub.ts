// The fan-out behind GET /v1/events (docs/interface.md §6). Each public event is framed once (`id`,
// `event`, one-line `data`) and kept in a 1000-frame ring for `Last-Event-ID` replay. Frames of one
// tick are joined into one chunk, and that one string goes to every subscriber: a burst costs one
// write per subscriber per tick, not one per event. Writes never wait: a subscriber whose socket
// cannot keep up has its backlog buffered by Node, and is dropped once it has not caught up for 30 s
// (or its backlog passes a memory cap), so no subscriber can slow the others down.
import type { EventPayloads, Logger, TidewatchEvent } from '../../core/index.js';

/** The event types the HTTP API streams; `registry_request` and third-party types stay internal. */
export const PUBLIC_EVENT_TYPES: readonly (keyof EventPayloads)[] = Object.freeze([
  'scan_started',
  'scan_completed',
  'scan_failed',
  'image_cleanup',
  'update_started',
  'update_completed',
  'update_failed',
  'update_skipped',
  'rollout_halted',
]);

export function isPublicEvent(event: TidewatchEvent): boolean {
  return PUBLIC_EVENT_TYPES.includes(event.type);
}

export const REPLAY_CAPACITY = 1000;
export const PING_INTERVAL_MS = 15_000;
export const SLOW_SUBSCRIBER_MS = 30_000;
/** A backlog this large is dropped even before 30 s: a burst must not exhaust the service's memory. */
export const MAX_BACKLOG_BYTES = 64 * 1024 * 1024;
export const RETRY_MS = 5000;

/** What the hub needs of a subscriber's socket; a ServerResponse is one. */
export interface SubscriberSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
  readonly destroyed: boolean;
  once(event: 'drain', listener: () => void): unknown;
  destroy(): void;
}

interface Frame {
  readonly id: number;
  readonly text: string;
}

class Subscriber {
  /** When the socket's buffer last went from empty to backed up; undefined while keeping up. */
  behindSince: number | undefined;
  readonly sink: SubscriberSink;

  constructor(sink: SubscriberSink) {
    this.sink = sink;
  }

  send(chunk: string, now: number): void {
    if (this.sink.destroyed) return;
    if (this.sink.write(chunk) || this.behindSince !== undefined) return;
    this.behindSince = now;
    this.sink.once('drain', () => {
      this.behindSince = undefined;
    });
  }
}

export interface HubOptions {
  readonly logger: Logger;
  readonly now?: () => number;
  readonly pingIntervalMs?: number;
  readonly slowAfterMs?: number;
}

export class EventHub {
  readonly #ring: (Frame | undefined)[] = new Array(REPLAY_CAPACITY);
  #lastId = 0;
  readonly #subscribers = new Set<Subscriber>();
  #pending: string[] = [];
  #flushScheduled = false;
  readonly #timers: NodeJS.Timeout[];
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #slowAfterMs: number;

  constructor(options: HubOptions) {
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#slowAfterMs = options.slowAfterMs ?? SLOW_SUBSCRIBER_MS;
    const ping = setInterval(() => this.#broadcast(': ping\n\n'), options.pingIntervalMs ?? PING_INTERVAL_MS);
    const sweep = setInterval(() => this.sweep(), Math.min(1000, this.#slowAfterMs));
    ping.unref();
    sweep.unref();
    this.#timers = [ping, sweep];
  }

  get size(): number {
    return this.#subscribers.size;
  }

  get lastId(): number {
    return this.#lastId;
  }

  publish(event: TidewatchEvent): void {
    if (!isPublicEvent(event)) return;
    const id = ++this.#lastId;
    // The documented frame only: an event's `findings` are for subscribers in the process (docs/plugins.md#findings).
    const frame = { type: event.type, timestamp: event.timestamp, data: event.data };
    const text = `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(frame)}\n\n`;
    this.#ring[id % REPLAY_CAPACITY] = { id, text };
    this.#broadcast(text);
  }

  /**
   * Adds a subscriber: `retry`, then the frames after `lastEventId` still in the ring, then the live
   * stream, with no gap and no duplicate between replay and live (all of it happens synchronously).
   */
  subscribe(sink: SubscriberSink, lastEventId: number | undefined): () => void {
    this.flush();
    const subscriber = new Subscriber(sink);
    subscriber.send(`retry: ${RETRY_MS}\n\n${this.replay(lastEventId).join('')}`, this.#now());
    this.#subscribers.add(subscriber);
    return () => {
      this.#subscribers.delete(subscriber);
    };
  }

  /** Frames after `lastEventId`, oldest first. */
  replay(lastEventId: number | undefined): string[] {
    if (lastEventId === undefined) return [];
    // An id from the future comes from an earlier process (ids restart at 1): all we have is new to it.
    const after = lastEventId > this.#lastId ? 0 : lastEventId;
    const first = Math.max(after + 1, this.#lastId - REPLAY_CAPACITY + 1, 1);
    const frames: string[] = [];
    for (let id = first; id <= this.#lastId; id++) {
      const frame = this.#ring[id % REPLAY_CAPACITY];
      if (frame?.id === id) frames.push(frame.text);
    }
    return frames;
  }

  /** Writes what this tick published; runs by itself on the next turn of the event loop. */
  flush(): void {
    this.#flushScheduled = false;
    if (this.#pending.length === 0) return;
    const chunk = this.#pending.length === 1 ? (this.#pending[0] as string) : this.#pending.join('');
    this.#pending = [];
    const now = this.#now();
    for (const subscriber of this.#subscribers) subscriber.send(chunk, now);
  }

  /** Drops subscribers that have not caught up for the allowed time or hoard too much memory. */
  sweep(): void {
    const now = this.#now();
    for (const subscriber of this.#subscribers) {
      const { sink, behindSince } = subscriber;
      const tooSlow = behindSince !== undefined && now - behindSince >= this.#slowAfterMs;
      if (!tooSlow && sink.writableLength <= MAX_BACKLOG_BYTES) continue;
      this.#subscribers.delete(subscriber);
      this.#logger.warn(
        { behind_ms: behindSince === undefined ? 0 : now - behindSince, backlog_bytes: sink.writableLength },
        'event subscriber too slow: disconnected',
      );
      sink.destroy();
    }
  }

  close(): void {
    for (const timer of this.#timers) clearInterval(timer);
    for (const subscriber of this.#subscribers) subscriber.sink.destroy();
    this.#subscribers.clear();
  }

  #broadcast(text: string): void {
    if (this.#subscribers.size === 0) return;
    this.#pending.push(text);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.flush());
  }
}
