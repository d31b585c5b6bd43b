// Files that are never half-written (docs/state.md#what-survives-which-failure), for every plugin that keeps
// one (the state, notifications, Compose files; contracts/shared): a write goes to a temporary file in the
// same directory, is flushed to disk, renamed over the old file, and the directory is flushed too, so a
// process killed at any instant leaves either the old file or the new one. A file that cannot be read or
// parsed is moved aside as `<file>.corrupt-<time>` with one warning, and the caller starts from nothing.
import { mkdir, openHandle as openFile, readFile, rename, rm } from './node-fs.js';
import { dirname } from 'node:path';
import { errorMessage, type Logger } from '../../core/index.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { close, fsync, open, write } = process.getBuiltinModule('node:fs');

// Not an ES import of node:util: building its namespace reads every lazy export, which loads
// worker_threads, parseArgs and the diff code into every process (docs/performance.md#memory).
const { promisify } = process.getBuiltinModule('node:util');
const fsyncAsync = promisify(fsync);
const openAsync = promisify(open);
const closeAsync = promisify(close);
const writeAsync = promisify(write);

let sequence = 0;

/** Flushes a directory's entries (the rename) to disk; a file system that refuses it is not an error. */
export async function syncDirectory(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = await openAsync(dir, 'r');
    await fsyncAsync(fd);
  } catch {
    // Some file systems (and Windows) cannot open or flush a directory: the rename is still atomic.
  } finally {
    if (fd !== undefined) await closeAsync(fd).catch(() => undefined);
  }
}

/** Replaces `file` with `data` atomically: temporary file, fsync, rename, directory fsync. */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${++sequence}`;
  const handle = await openFile(temp, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temp, file);
  await syncDirectory(dir);
}

/** Appends `data` and flushes it to disk before resolving. */
export async function appendDurable(file: string, data: string): Promise<void> {
  const fd = await openAsync(file, 'a', 0o600);
  try {
    const buffer = Buffer.from(data);
    let offset = 0;
    while (offset < buffer.length) offset += (await writeAsync(fd, buffer, offset)).bytesWritten;
    await fsyncAsync(fd);
  } finally {
    await closeAsync(fd);
  }
}

/** `<file>.corrupt-<time>`: where an unreadable file goes, with a time that sorts. */
export function quarantineName(file: string, now = new Date()): string {
  return `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`;
}

/** Moves an unreadable file aside with one warning; never throws. */
export async function quarantine(file: string, why: string, logger: Logger): Promise<void> {
  const aside = quarantineName(file);
  try {
    await rename(file, aside);
    logger.warn({ file, moved_to: aside, err: why }, 'state file unreadable: moved aside, starting without it');
  } catch (err) {
    logger.warn({ file, err: `${why}; could not move it aside: ${errorMessage(err)}` }, 'state file unreadable: starting without it');
  }
}

/**
 * The JSON in `file`, or undefined when there is none. A file that cannot be read or parsed, or that
 * `valid` refuses, is quarantined and reads as undefined.
 */
export async function readJsonFile<T>(file: string, logger: Logger, valid: (value: unknown) => value is T): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    await quarantine(file, errorMessage(err), logger);
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    await quarantine(file, errorMessage(err), logger);
    return undefined;
  }
  if (!valid(value)) {
    await quarantine(file, 'unexpected content', logger);
    return undefined;
  }
  return value;
}
