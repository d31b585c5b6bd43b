// The snapshot files (docs/snapshots.md#where-snapshots-live): <data-dir>/snapshots/<id>/<volume>.tar, one tar a
// volume as the engine gave it. A snapshot is written under <id>.partial, each file hashed (sha256) as it is
// written and fsynced, then the directory is renamed to <id> and synced, and only then indexed: a process killed
// while writing leaves a .partial directory, which the next start removes with any directory the index lacks.
// The size bound counts what lands on disk (the tar files, their headers included): past it the writer stops
// and the snapshot is dropped (`tooLarge`), so a volume never fills the disk halfway.
// node:crypto loads with the first use, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');
import { mkdir, openHandle as open, readdir, rename, rm, statfs } from '../../contracts/shared/node-fs.js';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createError, type Logger } from '../../core/index.js';
import { syncDirectory } from '../../contracts/shared/atomic-file.js';
import type { SnapshotRecord, SnapshotVolume, SnapshotWriter } from './snapshot-contracts.js';
import type { SnapshotTable } from './snapshot-table.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { createReadStream, createWriteStream } = process.getBuiltinModule('node:fs');

export const SNAPSHOT_DIR = 'snapshots';

export const snapshotErrors = {
  tooLarge: createError('TW_ERR_SNAPSHOT_TOO_LARGE', (max: number) => `snapshot too large (over ${max} bytes)`, 500),
  badVolume: createError('TW_ERR_SNAPSHOT_VOLUME', (name: string) => `volume name ${JSON.stringify(name.slice(0, 100))} cannot name a snapshot file`, 500),
  checksum: createError('TW_ERR_SNAPSHOT_CHECKSUM', (id: string, volume: string) => `snapshot ${id}: ${volume}.tar does not match its sha256`, 500),
  missing: createError('TW_ERR_SNAPSHOT_MISSING', (id: string, volume: string) => `snapshot ${id} has no volume ${volume}`, 500),
};

/** Docker's own rule for volume names: safe as a file name. */
const VOLUME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;
const SNAPSHOT_ID = /^[a-z0-9]+-[a-f0-9]{8}$/;

export const newSnapshotId = (now = Date.now()): string => `${now.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;

/** Counts and hashes what passes; fails past `limit` bytes in all (`used` is shared across a snapshot's volumes). */
class Meter extends Transform {
  readonly hash = nodeCrypto().createHash('sha256');
  constructor(
    readonly used: { bytes: number },
    readonly limit: number,
  ) {
    // Large buffers between the engine's socket and the file: fewer pauses of the socket (docs/snapshots.md#what-it-costs).
    super({ highWaterMark: 4 * 1024 * 1024 });
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.used.bytes += chunk.length;
    if (this.used.bytes > this.limit) return done(snapshotErrors.tooLarge(this.limit));
    this.hash.update(chunk);
    done(null, chunk);
  }
}

export class SnapshotFiles {
  readonly root: string;

  constructor(
    dataDir: string,
    readonly table: () => SnapshotTable,
    readonly logger: Logger,
  ) {
    this.root = join(dataDir, SNAPSHOT_DIR);
  }

  async freeBytes(): Promise<number> {
    await mkdir(this.root, { recursive: true });
    const stats = await statfs(this.root);
    return stats.bavail * stats.bsize;
  }

  /** Removes what a killed process left: .partial directories and any directory the index lacks. */
  async sweep(): Promise<string[]> {
    await mkdir(this.root, { recursive: true });
    const indexed = this.table().allIds();
    const removed: string[] = [];
    for (const entry of await readdir(this.root)) {
      if (indexed.has(entry)) continue;
      await rm(join(this.root, entry), { recursive: true, force: true });
      removed.push(entry);
    }
    return removed;
  }

  async begin(meta: { container: string; host?: string; runId: string; imageId: string }, maxBytes: number): Promise<SnapshotWriter> {
    const id = newSnapshotId();
    const partial = join(this.root, `${id}.partial`);
    await mkdir(partial, { recursive: true });
    const volumes: SnapshotVolume[] = [];
    const used = { bytes: 0 };
    const final = join(this.root, id);
    return {
      id,
      addVolume: async (name, destination, tar, bytes) => {
        if (!VOLUME_NAME.test(name)) throw snapshotErrors.badVolume(name);
        const file = join(partial, `${name}.tar`);
        const meter = new Meter(used, maxBytes);
        await pipeline(tar, meter, createWriteStream(file, { flags: 'wx', highWaterMark: 1024 * 1024 }));
        const handle = await open(file, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        const volume = { name, destination, bytes: bytes(), sha256: meter.hash.digest('hex') };
        volumes.push(volume);
        return volume;
      },
      commit: async () => {
        await syncDirectory(partial);
        await rename(partial, final);
        await syncDirectory(this.root);
        const record: SnapshotRecord = {
          id,
          container: meta.container,
          ...(meta.host ? { host: meta.host } : {}),
          created_at: new Date().toISOString(),
          volumes,
          run_id: meta.runId,
          image_id: meta.imageId,
        };
        this.table().insert(record);
        return record;
      },
      abort: async () => {
        await rm(partial, { recursive: true, force: true });
      },
    };
  }

  /** Keeps the newest `retention` snapshots of the container; the index row goes first, then the files. */
  async retain(container: string, host: string | undefined, retention: number): Promise<string[]> {
    const dropped = this.table().ofContainer(container, host).slice(retention);
    for (const old of dropped) {
      this.table().remove(old.id);
      await rm(join(this.root, old.id), { recursive: true, force: true });
    }
    return dropped.map((s) => s.id);
  }

  /** One volume's tar; the stream fails at its end when the bytes do not match the recorded sha256. */
  read(record: SnapshotRecord, volume: string): Readable {
    const entry = record.volumes.find((v) => v.name === volume);
    if (!entry || !SNAPSHOT_ID.test(record.id) || !VOLUME_NAME.test(volume)) throw snapshotErrors.missing(record.id, volume);
    const hash = nodeCrypto().createHash('sha256');
    const check = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        done(null, chunk);
      },
      flush(done) {
        done(hash.digest('hex') === entry.sha256 ? null : snapshotErrors.checksum(record.id, volume));
      },
    });
    const source = createReadStream(join(this.root, record.id, `${volume}.tar`), { highWaterMark: 1024 * 1024 });
    source.once('error', (err) => check.destroy(err));
    return source.pipe(check);
  }
}
