// Restoring a snapshot in place (docs/snapshots.md#how-a-restore-works), through a stopped container that
// mounts the volumes, with the Engine's archive API only — no helper image, no shell in the app's image:
//
//   1. empty: `PUT /containers/{id}/archive?path=<parent>` with a tar holding one empty regular file named as
//      the mount point. The engine replaces a directory by a file with a recursive remove: every file of the
//      volume goes, then removing the mount point itself fails (it is a mount: EBUSY) and the call errs.
//   2. check: `GET …/archive?path=<mount point>` must hold the directory alone; otherwise the restore fails.
//   3. fill: the snapshot's tar streamed to `PUT …/archive?path=<parent>`: its root entry is the mount point
//      (a directory onto a directory: kept, its mode and owner set), every entry with its own owner and mode.
//
// The result is the volume exactly as at the snapshot: files added since are gone, changed ones back. Each
// step is safe to repeat, so a restore cut short (SIGKILL) is simply done again by start-up repair.
import { posix } from 'node:path';
import { errorMessage, type Logger } from '../../../../core/index.js';
import type { SnapshotRecord, Snapshots } from '../../../../contracts/index.js';
import type { EngineClient } from '../../engine/client.js';

/** A tar of one empty regular file named `name` (ustar header and the two end blocks). */
export function emptyFileTar(name: string): Buffer {
  const tar = Buffer.alloc(512 * 3);
  tar.write(name, 0, 100, 'utf8');
  tar.write('0000644\0', 100, 'latin1');
  tar.write('0000000\0', 108, 'latin1');
  tar.write('0000000\0', 116, 'latin1');
  tar.write('00000000000\0', 124, 'latin1');
  tar.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136, 'latin1');
  tar.write('        ', 148, 'latin1');
  tar.write('0', 156, 'latin1');
  tar.write('ustar\0', 257, 'latin1');
  tar.write('00', 263, 'latin1');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += tar[i]!;
  tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return tar;
}

/** Entries in the archive of `path` besides `path` itself. */
async function entriesBelow(docker: EngineClient, id: string, path: string): Promise<number> {
  const { extract } = await import('tar-stream');
  const archive = await docker.getArchive(id, path);
  const parser = extract();
  archive.once('error', (err) => parser.destroy(err));
  archive.pipe(parser);
  let count = 0;
  for await (const entry of parser) {
    if (entry.header.name.replace(/\/$/, '') !== posix.basename(path)) count++;
    entry.resume();
  }
  return count;
}

/** Empties the volume mounted at `destination` of the stopped container `id`. */
export async function emptyVolume(docker: EngineClient, id: string, destination: string, logger?: Logger): Promise<void> {
  const mountPoint = posix.normalize(destination).replace(/\/$/, '');
  const tar = emptyFileTar(posix.basename(mountPoint));
  try {
    await docker.putArchiveStream(id, posix.dirname(mountPoint), bufferStream(tar));
  } catch (err) {
    // Expected: the mount point itself cannot be removed. What counts is that nothing is left below it.
    logger?.debug({ err: errorMessage(err) }, 'emptying a volume: the engine could not remove the mount point, as expected');
  }
  const left = await entriesBelow(docker, id, mountPoint);
  if (left > 0) throw new Error(`could not empty the volume at ${mountPoint}: ${left} entries left`);
}

function bufferStream(buffer: Buffer) {
  const { Readable } = process.getBuiltinModule('node:stream');
  return Readable.from([buffer]);
}

/** Puts every volume of `snapshot` back through the stopped container `id`, which mounts them. */
export async function restoreSnapshot(
  docker: EngineClient,
  snapshots: Snapshots,
  id: string,
  snapshot: SnapshotRecord,
  logger?: Logger,
): Promise<void> {
  const info = await docker.getContainer(id).inspect();
  const mounts = (info.Mounts ?? []) as { Type?: string; Name?: string; Destination: string }[];
  for (const volume of snapshot.volumes) {
    // The container mounts the volume where the snapshot's container did (a replacement keeps its mounts).
    const mount = mounts.find((m) => m.Type === 'volume' && m.Name === volume.name);
    if (!mount) throw new Error(`the container does not mount volume ${volume.name}`);
    const mountPoint = posix.normalize(mount.Destination).replace(/\/$/, '');
    if (posix.basename(mountPoint) !== posix.basename(posix.normalize(volume.destination).replace(/\/$/, ''))) {
      throw new Error(`volume ${volume.name} is mounted at ${mountPoint}, the snapshot was of ${volume.destination}`);
    }
    await emptyVolume(docker, id, mountPoint, logger);
    const tar = snapshots.read(snapshot.id, volume.name);
    try {
      await docker.putArchiveStream(id, posix.dirname(mountPoint), tar);
    } catch (err) {
      tar.destroy();
      throw err;
    }
  }
}
