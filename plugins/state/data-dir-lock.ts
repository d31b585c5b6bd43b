// One Tidewatch per data directory (docs/state.md#one-process-per-data-directory). Two processes on one
// --data-dir overwrite each other's state, and one's start-up repair undoes the other's replacement in
// progress; so the state plugin takes `tidewatch.lock` before it reads anything, and a second process is
// refused (exit 2, naming the holder).
//
// Node has no portable advisory lock (no flock), so the lock is a file created exclusively (O_EXCL, or a
// hard link of a complete temporary file, so that no reader ever sees half a record) holding who took it.
// Whether that holder still lives is decided two ways:
// - in the same kernel boot and PID namespace (the same host, or the same container after a restart): by its
//   pid *and* the process start time the kernel reports, so a reused pid (pid 1 in a restarted container)
//   is not mistaken for the holder: a SIGKILLed holder's lock is taken over at the next start;
// - the same container (its id read from its mounts) in another PID namespace: the container was restarted,
//   so the holder is gone (a restart policy starting it again after a crash is not refused);
// - across PID namespaces (two containers sharing a volume) or machines, where a pid says nothing: by a
//   lease. The holder touches the file every HEARTBEAT_MS; a file untouched for LEASE_MS is stale.
// A stale lock is moved aside (rename: one process wins) before a new one is created.
import { link, readFile, rename, rm, stat, unlink, utimes, writeFile } from '../../contracts/shared/node-fs.js';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { errorMessage, invalidOptions, type Logger } from '../../core/index.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync, readlinkSync, unlinkSync } = process.getBuiltinModule('node:fs');

export const LOCK_FILE = 'tidewatch.lock';
export const HEARTBEAT_MS = 10_000;
/** Three missed heartbeats. */
export const LEASE_MS = 30_000;

/** Who holds the lock, as written in the file. */
export interface LockRecord {
  readonly pid: number;
  readonly host: string;
  /** The kernel boot (`/proc/sys/kernel/random/boot_id`) and PID namespace the pid belongs to. */
  readonly boot?: string;
  readonly pid_ns?: string;
  /** The container the process runs in, when it runs in one (Docker's or Podman's id, from its mounts). */
  readonly container?: string;
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat`), against pid reuse. */
  readonly start_ticks?: number;
  /** RFC 3339. */
  readonly since: string;
  /** Tells this holder's file from a later one's. */
  readonly nonce: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
export function startTicks(pid: number | 'self'): number | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

function pidNamespace(): string | undefined {
  try {
    // `pid:[4026531836]`: the namespace's inode, the same for every process that shares it.
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** The engine mounts the container's own `hostname` file from `…/containers/<id>/` (Podman: `…/<id>/userdata/`). */
export function containerIdOf(mountinfo: string): string | undefined {
  return /\/([0-9a-f]{64})\/(?:userdata\/)?hostname /.exec(mountinfo)?.[1];
}

export function ownRecord(): LockRecord {
  const boot = readText('/proc/sys/kernel/random/boot_id');
  const ns = pidNamespace();
  const ticks = startTicks('self');
  const container = containerIdOf(readText('/proc/self/mountinfo') ?? '');
  return {
    pid: process.pid,
    host: hostname(),
    ...(boot ? { boot } : {}),
    ...(ns ? { pid_ns: ns } : {}),
    ...(container ? { container } : {}),
    ...(ticks !== undefined ? { start_ticks: ticks } : {}),
    since: new Date().toISOString(),
    nonce: lockNonce(),
  };
}

/**
 * A lock's nonce tells this holder from any other, even another core of this process: it must be unique, not
 * secret (the record is in the data directory for anyone who may read it), so it is made without node:crypto,
 * which an idle service with a data directory would otherwise load for this alone (docs/performance.md#memory).
 */
let nonces = 0;
function lockNonce(): string {
  const random = Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0');
  return `${Date.now().toString(16)}${(++nonces).toString(16).padStart(4, '0')}${random}`;
}

/** Field 3 of /proc/<pid>/stat: R, S, D… while it lives; Z (zombie) and X (dead) once it has exited. */
export function processState(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // kill(pid, 0) also succeeds on a zombie: a holder that exited but whose parent has not reaped it yet
  // (a restart right after a stop, under load) is gone, and its lock is stale.
  const state = processState(pid);
  return state !== 'Z' && state !== 'X';
}

/** The nonces of the locks this process holds: two embedded cores on one directory are refused too. */
const heldHere = new Set<string>();

/** Whether the holder of `record`, whose file was last touched at `touchedMs`, may still be running. */
export function holderAlive(record: LockRecord, touchedMs: number, me: LockRecord, nowMs = Date.now()): boolean {
  const samePidSpace = record.boot !== undefined && record.boot === me.boot && record.pid_ns !== undefined && record.pid_ns === me.pid_ns;
  if (samePidSpace) {
    // Our own pid but not a lock we hold: an earlier life of this pid (a restarted container's pid 1).
    if (record.pid === me.pid) return heldHere.has(record.nonce);
    if (!processAlive(record.pid)) return false;
    const ticks = startTicks(record.pid);
    return record.start_ticks === undefined || ticks === undefined || ticks === record.start_ticks;
  }
  // The same container in another PID namespace: the container was restarted, its processes are gone.
  if (record.boot !== undefined && record.boot === me.boot && record.container !== undefined && record.container === me.container) return false;
  return nowMs - touchedMs < LEASE_MS;
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    return typeof value.pid === 'number' && typeof value.nonce === 'string' && typeof value.host === 'string' ? (value as LockRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** `pid 123 on host web-1 (since …)`. */
export function describeHolder(record: LockRecord): string {
  const container = record.container ? ` in container ${record.container.slice(0, 12)}` : '';
  return `pid ${record.pid}${container} on host ${record.host}, since ${record.since}`;
}

export class DataDirLock {
  readonly #file: string;
  readonly #me: LockRecord;
  #held = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #onExit = () => this.#releaseSync();

  constructor(
    readonly dir: string,
    readonly logger: Logger,
  ) {
    this.#file = join(dir, LOCK_FILE);
    this.#me = ownRecord();
  }

  get held(): boolean {
    return this.#held;
  }

  /** Creates the lock file only if none exists: a complete temporary file, hard-linked into place. */
  async #create(): Promise<boolean> {
    const temp = `${this.#file}.${this.#me.nonce}`;
    await writeFile(temp, `${JSON.stringify(this.#me)}\n`, { mode: 0o644 });
    try {
      await link(temp, this.#file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** The current holder, or undefined when the file is gone. An unreadable record counts as its file's age. */
  async #holder(): Promise<{ record: LockRecord | undefined; touchedMs: number } | undefined> {
    try {
      const [text, info] = await Promise.all([readFile(this.#file, 'utf8'), stat(this.#file)]);
      return { record: parseRecord(text), touchedMs: info.mtimeMs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Moves a stale lock aside; false when another process got there first (the file changed). */
  async #removeStale(nonce: string | undefined): Promise<boolean> {
    const aside = `${this.#file}.stale-${this.#me.nonce}`;
    try {
      await rename(this.#file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    const moved = parseRecord(await readFile(aside, 'utf8').catch(() => ''));
    if (moved?.nonce !== nonce) {
      // A fresh lock taken between our look and the rename: put it back unless yet another exists.
      await link(aside, this.#file).catch(() => undefined);
      await rm(aside, { force: true });
      return false;
    }
    await rm(aside, { force: true });
    return true;
  }

  /** Takes the lock, or throws the exit-2 configuration error naming the holder. */
  async acquire(): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await this.#create()) return this.#start();
      const holder = await this.#holder();
      if (!holder) continue;
      const { record, touchedMs } = holder;
      if (record && holderAlive(record, touchedMs, this.#me)) {
        throw invalidOptions(
          'data-dir',
          `--data-dir ${this.dir} is in use by another Tidewatch (${describeHolder(record)}): two processes must not share ` +
            'one data directory; stop the other one or give this one its own --data-dir',
        );
      }
      if (await this.#removeStale(record?.nonce)) {
        this.logger.warn({ dir: this.dir, ...(record ? { stale_holder: describeHolder(record) } : {}) }, 'took over the data directory lock of a process that is gone');
      }
    }
    throw invalidOptions('data-dir', `--data-dir ${this.dir}: could not take its lock (${LOCK_FILE}): other processes keep taking it`);
  }

  #start(): void {
    this.#held = true;
    heldHere.add(this.#me.nonce);
    process.once('exit', this.#onExit);
    this.#timer = setInterval(() => void this.#beat(), HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Renews the lease; a lock someone took from us is said at error level, and no longer ours. */
  async #beat(): Promise<void> {
    if (!this.#held) return;
    try {
      const holder = await this.#holder();
      if (holder?.record?.nonce !== this.#me.nonce) {
        this.#stop();
        this.logger.error(
          { dir: this.dir, ...(holder?.record ? { holder: describeHolder(holder.record) } : {}) },
          'lost the data directory lock: another process took it',
        );
        return;
      }
      const now = new Date();
      await utimes(this.#file, now, now);
    } catch (err) {
      this.logger.warn({ dir: this.dir, err: errorMessage(err) }, 'could not renew the data directory lock');
    }
  }

  #stop(): void {
    this.#held = false;
    heldHere.delete(this.#me.nonce);
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    process.removeListener('exit', this.#onExit);
  }

  /** Releases the lock if this process still holds it (the file still names it). */
  async release(): Promise<void> {
    if (!this.#held) return;
    this.#stop();
    const holder = await this.#holder().catch(() => undefined);
    if (holder?.record?.nonce === this.#me.nonce) await unlink(this.#file).catch(() => undefined);
  }

  /**
   * Takes the lock back whoever's name is in it: for a self-update whose successor this process removed again
   * (docs/image.md#self-update), the only one the lock could have gone to since the hand-over.
   */
  async reclaim(): Promise<void> {
    if (this.#held) return;
    const temp = `${this.#file}.${this.#me.nonce}`;
    await writeFile(temp, `${JSON.stringify(this.#me)}\n`, { mode: 0o644 });
    await rename(temp, this.#file);
    this.#start();
  }

  #releaseSync(): void {
    if (!this.#held) return;
    this.#stop();
    if (parseRecord(readText(this.#file) ?? '')?.nonce === this.#me.nonce) {
      try {
        unlinkSync(this.#file);
      } catch {
        // Gone already.
      }
    }
  }
}
