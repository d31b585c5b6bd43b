// Taking a snapshot (docs/snapshots.md#how-a-snapshot-is-taken): with the old container stopped, the Engine's
// `GET /containers/{id}/archive?path=<mount point>` gives a tar of each volume as mounted, owners and modes
// in its headers; each is written to the data directory by the state plugin (hashed, fsynced, indexed).
// Nothing is read from /var/lib/docker: Tidewatch usually runs in a container with only the socket.
import { posix } from 'node:path';
import { createError } from '../../../../core/index.js';
import type { SnapshotRecord, Snapshots } from '../../../../contracts/index.js';
import type { EngineClient } from '../../engine/client.js';
import { TarByteCounter } from './tar-count.js';
import type { SnapshotMount } from './volumes.js';

export const snapshotSkips = {
  noSpace: createError('TW_ERR_SNAPSHOT_NO_SPACE', (free: number, need: number) => `snapshot: not enough disk space (${free} bytes free, ${need} needed)`, 500),
};

/** An update that cannot take the snapshot it was asked for is skipped with this reason, never done without it. */
export class SnapshotSkip extends Error {}

/** Room wanted before a snapshot: the container's last snapshot and a quarter more, else the size bound. */
export function spaceNeeded(snapshots: Snapshots, container: string, host: string | undefined): number {
  const last = snapshots.latestFor(container, host);
  const lastSize = last?.volumes.reduce((sum, v) => sum + v.bytes, 0);
  return lastSize === undefined ? snapshots.settings.maxBytes : Math.min(snapshots.settings.maxBytes, Math.ceil(lastSize * 1.25) + 1024 * 1024);
}

export async function takeSnapshot(
  docker: EngineClient,
  snapshots: Snapshots,
  containerId: string,
  mounts: readonly SnapshotMount[],
  meta: { container: string; host?: string; runId: string; imageId: string },
): Promise<SnapshotRecord> {
  const need = spaceNeeded(snapshots, meta.container, meta.host);
  const free = await snapshots.freeBytes();
  if (free < need) throw new SnapshotSkip(snapshotSkips.noSpace(free, need).message);
  const writer = await snapshots.begin(meta);
  try {
    for (const mount of mounts) {
      const archive = await docker.getArchive(containerId, posix.normalize(mount.destination));
      const counter = new TarByteCounter();
      archive.once('error', (err) => counter.destroy(err));
      await writer.addVolume(mount.name, mount.destination, archive.pipe(counter), () => counter.regularBytes);
    }
    return await writer.commit();
  } catch (err) {
    await writer.abort();
    if ((err as { code?: string }).code === 'TW_ERR_SNAPSHOT_TOO_LARGE') throw new SnapshotSkip('snapshot too large');
    if ((err as { code?: string }).code === 'ENOSPC') throw new SnapshotSkip('snapshot: not enough disk space');
    throw err;
  }
}
