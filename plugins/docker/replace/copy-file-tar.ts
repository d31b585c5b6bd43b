// The tar archives of the copy-file label (docs/watchtower-fork.md#the-copy-file-label): one regular file read
// out of the engine's answer to `GET /containers/{id}/archive`, and the files packed again for `PUT …/archive`.
// What the engine sends holds a file of the container, which is not to be trusted: exactly one entry, a regular
// file whose name is the path's own base name (no directory part, no `..`), at most the bound; anything else
// (a directory, a symlink, a hard link, a device, a second entry) is refused before its content is read.
// tar-stream loads only here, when a container carries the label (docs/performance.md#memory).
import type { Readable } from 'node:stream';
import { posix } from 'node:path';

/** One file carried over: its content with the owner and mode its old container had. */
export interface CarriedFile {
  /** Absolute, normalised in-container path. */
  readonly path: string;
  readonly content: Buffer;
  /** Permission bits only (setuid, setgid and sticky are dropped). */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly mtime: Date | undefined;
}

/** The archive of a path holds something other than one regular file of the bound's size. */
export class RefusedArchive extends Error {}

const TAR_OVERHEAD = 64 * 1024;

const KINDS: Readonly<Record<string, string>> = {
  directory: 'a directory',
  symlink: 'a symbolic link',
  link: 'a hard link',
  'character-device': 'a device',
  'block-device': 'a device',
  fifo: 'a FIFO',
};

/**
 * The one file in `archive` (the engine's answer for `path`), at most `maxBytes` long. The stream is destroyed
 * as soon as anything is refused; more than `maxBytes` plus the tar's own headers is never read.
 */
export async function readOneFile(archive: Readable, path: string, maxBytes: number): Promise<CarriedFile> {
  const { extract } = await import('tar-stream');
  const parser = extract();
  let received = 0;
  const counted = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > maxBytes + TAR_OVERHEAD) archive.destroy(new RefusedArchive(`larger than ${maxBytes} bytes`));
  };
  archive.on('data', counted);
  archive.once('error', (err) => parser.destroy(err));
  archive.pipe(parser);
  let found: CarriedFile | undefined;
  try {
    for await (const entry of parser) {
      const { header } = entry;
      if (found) throw new RefusedArchive('unsafe archive: more than one entry');
      const type = header.type ?? 'file';
      if (type !== 'file' && type !== 'contiguous-file') throw new RefusedArchive(`it is ${KINDS[type] ?? `not a regular file (${type})`}`);
      if (header.name !== posix.basename(path)) throw new RefusedArchive(`unsafe archive: an entry named ${JSON.stringify(header.name.slice(0, 200))}`);
      const size = header.size ?? 0;
      if (size > maxBytes) throw new RefusedArchive(`${size} bytes, over the limit of ${maxBytes}`);
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const content = Buffer.concat(chunks);
      if (content.length !== size) throw new RefusedArchive('unsafe archive: the entry is shorter than its header says');
      found = {
        path,
        content,
        mode: (header.mode ?? 0o644) & 0o777,
        uid: header.uid ?? 0,
        gid: header.gid ?? 0,
        mtime: header.mtime,
      };
    }
  } finally {
    archive.off('data', counted);
    archive.destroy();
  }
  if (!found) throw new RefusedArchive('the engine sent an empty archive');
  return found;
}

/**
 * One archive to extract at the container's root: each entry named by its full path, so that the engine
 * creates a parent directory the new image lacks (as Compose injects `configs:`); owner and mode as read.
 */
export async function packFiles(files: readonly CarriedFile[]): Promise<Buffer> {
  const { pack } = await import('tar-stream');
  const packer = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of packer) chunks.push(chunk as Buffer);
  })();
  for (const file of files) {
    await new Promise<void>((resolve, reject) => {
      packer.entry(
        { name: file.path.slice(1), type: 'file', size: file.content.length, mode: file.mode, uid: file.uid, gid: file.gid, mtime: file.mtime ?? new Date() },
        file.content,
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }
  packer.finalize();
  await done;
  return Buffer.concat(chunks);
}
