// The audit trail (docs/state.md#the-audit-trail): append-only JSON lines, one entry a line, each append
// flushed to disk before it resolves. It is never held in memory: start-up only counts the lines and cuts a
// torn last line (a process killed in the middle of an append), and `GET /v1/audit` reads the file. Past
// `capacity` entries by a tenth, the newest `capacity` are rewritten atomically (atomic-file.ts).
import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendDurable, writeFileAtomic } from './atomic-file.js';
import { errorMessage } from './errors.js';
import type { AuditEntry, AuditQuery, AuditRecord } from './state.js';
import type { Logger } from './types.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export const AUDIT_CAPACITY = 10_000;

function matches(entry: AuditEntry, query: AuditQuery): boolean {
  if (query.container !== undefined && entry.container !== query.container) return false;
  const at = Date.parse(entry.time);
  return (query.since === undefined || at >= query.since) && (query.until === undefined || at <= query.until);
}

export function selectAudit(entries: readonly AuditEntry[], query: AuditQuery): AuditEntry[] {
  const found = entries.filter((entry) => matches(entry, query));
  if (query.limit === undefined) return found;
  return query.limit === 0 ? [] : found.slice(-query.limit);
}

function isEntry(value: unknown): value is AuditEntry {
  const v = value as Partial<AuditEntry> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.time === 'string' && typeof v.action === 'string';
}

export function newEntry(record: AuditRecord): AuditEntry {
  const { time, ...rest } = record;
  return { id: nodeCrypto().randomUUID(), time: time ?? new Date().toISOString(), ...rest };
}

/** Lines in the file and where the last complete one ends, read in small chunks (no copy of the file). */
async function scan(file: string): Promise<{ lines: number; end: number; size: number }> {
  let lines = 0;
  let end = 0;
  let offset = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      lines++;
      end = offset + i + 1;
    }
    offset += chunk.length;
  }
  return { lines, end, size: offset };
}

export interface AuditTrail {
  append(record: AuditRecord): Promise<AuditEntry>;
  query(query: AuditQuery): Promise<AuditEntry[]>;
  flush(): Promise<void>;
}

/** In memory, for a store without a data directory. */
export class MemoryAudit implements AuditTrail {
  readonly #entries: AuditEntry[] = [];
  constructor(readonly capacity = AUDIT_CAPACITY) {}

  async append(record: AuditRecord): Promise<AuditEntry> {
    const entry = newEntry(record);
    this.#entries.push(entry);
    if (this.#entries.length > this.capacity) this.#entries.splice(0, this.#entries.length - this.capacity);
    return entry;
  }

  async query(query: AuditQuery): Promise<AuditEntry[]> {
    return selectAudit(this.#entries, query);
  }

  async flush(): Promise<void> {}
}

export class FileAudit implements AuditTrail {
  #lines = 0;
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly file: string,
    readonly capacity: number,
    readonly logger: Logger,
  ) {}

  static async open(file: string, logger: Logger, capacity = AUDIT_CAPACITY): Promise<FileAudit> {
    const audit = new FileAudit(file, capacity, logger);
    await mkdir(dirname(file), { recursive: true });
    try {
      await stat(file);
    } catch {
      return audit;
    }
    try {
      const { lines, end, size } = await scan(file);
      if (end < size) {
        // A process killed in the middle of an append: the entry was never acknowledged.
        await truncate(file, end);
        logger.warn({ file, bytes: size - end }, 'audit trail ended in a torn entry: cut');
      }
      audit.#lines = lines;
    } catch (err) {
      logger.warn({ file, err: errorMessage(err) }, 'audit trail unreadable: appending after it');
    }
    return audit;
  }

  /** Runs `work` after every earlier append and trim: one writer at a time. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work, work);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  append(record: AuditRecord): Promise<AuditEntry> {
    const entry = newEntry(record);
    return this.#serial(async () => {
      await appendDurable(this.file, `${JSON.stringify(entry)}\n`);
      this.#lines++;
      if (this.#lines > this.capacity + Math.ceil(this.capacity / 10)) await this.#trim();
      return entry;
    });
  }

  async #trim(): Promise<void> {
    const lines = (await readFile(this.file, 'utf8')).split('\n').filter(Boolean);
    const kept = lines.slice(-this.capacity);
    await writeFileAtomic(this.file, `${kept.join('\n')}\n`);
    this.#lines = kept.length;
  }

  async query(query: AuditQuery): Promise<AuditEntry[]> {
    await this.#chain;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const entries: AuditEntry[] = [];
    let bad = 0;
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const value: unknown = JSON.parse(line);
        if (isEntry(value)) entries.push(value);
        else bad++;
      } catch {
        bad++;
      }
    }
    if (bad > 0) this.logger.warn({ file: this.file, lines: bad }, 'audit trail lines unreadable: skipped');
    return selectAudit(entries, query);
  }

  async flush(): Promise<void> {
    await this.#chain;
  }
}
