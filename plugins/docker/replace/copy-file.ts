// The copy-file label (docs/watchtower-fork.md#the-copy-file-label): files that live only in a container's
// writable layer, such as those Compose writes in for `configs:` with `content:` or `environment:`, are read
// out of the old container and written into its replacement while the replacement is created but not started,
// owner and mode kept. The engine records no such file on inspect, so the label names them:
// `com.centurylinklabs.watchtower.copy-file=/etc/app/config.yml,/etc/app/extra.conf` (or `tidewatch.copy-file`).
//
// Both happen while the old container still runs (the replacement is staged beside it, replace.ts), so any
// refusal — a bad path, a directory or symlink, a file over 1 MiB, more than 16 MiB in all, an unsafe archive,
// an engine that refuses the write — fails that container's update and leaves the old container as it was:
// updating without the file would lose exactly what the label asked to keep.
import { createError, errorMessage, readLabel, type Logger } from '../../../core/index.js';
import type Docker from 'dockerode';
import { posix } from 'node:path';
import { packFiles, readOneFile, type CarriedFile } from './copy-file-tar.js';
import type { EngineClient } from '../engine/client.js';
import { isNotFound } from '../engine/errors.js';

export const COPY_FILE_LIMITS = {
  /** Per file, as the fork bounds it. */
  fileBytes: 1024 * 1024,
  /** All the files Tidewatch holds at once (one container's at a time: carries run one after another). */
  totalBytes: 16 * 1024 * 1024,
  /** Paths in one label: each is a request to the engine. */
  paths: 100,
  pathBytes: 4096,
} as const;

/** Thrown for every refusal: the container's update fails, the old container keeps running. */
export const CopyFileError = createError('TW_ERR_DOCKER_COPY_FILE', (container: string, detail: string) => `copy-file of ${container}: ${detail}`, 500);

/** The label's paths: comma-separated absolute paths, normalised, without `.` or `..` segments. */
export function copyFilePaths(labels: Readonly<Record<string, string>>, container: string): string[] {
  const value = readLabel(labels, 'copy-file');
  if (value === undefined) return [];
  const paths = [...new Set(value.split(',').map((p) => p.trim()).filter((p) => p !== ''))];
  if (paths.length > COPY_FILE_LIMITS.paths) throw CopyFileError(container, `more than ${COPY_FILE_LIMITS.paths} paths`);
  for (const path of paths) {
    const shown = JSON.stringify(path.slice(0, 200));
    if (Buffer.byteLength(path) > COPY_FILE_LIMITS.pathBytes) throw CopyFileError(container, `a path longer than ${COPY_FILE_LIMITS.pathBytes} bytes`);
    if (!path.startsWith('/') || path === '/' || path.includes('\0')) throw CopyFileError(container, `${shown} is not an absolute file path`);
    if (path.split('/').some((segment) => segment === '..' || segment === '.') || posix.normalize(path) !== path || path.endsWith('/')) {
      throw CopyFileError(container, `${shown} is not a normalised path (no "..", ".", "//" or trailing "/")`);
    }
  }
  return paths;
}

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** Mount points the replacement gets again (HostConfig's binds and mounts: named volumes, binds). */
function keptMountPoints(info: Docker.ContainerInspectInfo): { kept: string[]; tmpfs: string[] } {
  const host = info.HostConfig;
  const kept = (host.Binds ?? []).map((bind) => bind.split(':')[1]).filter((d): d is string => Boolean(d));
  const tmpfs = Object.keys(host.Tmpfs ?? {});
  for (const mount of host.Mounts ?? []) (mount.Type === 'tmpfs' ? tmpfs : kept).push(mount.Target);
  return { kept, tmpfs };
}

/**
 * Why `path` is not copied, or undefined when it is. A mount the replacement keeps (a bind, a named volume)
 * already carries its files, and writing an older copy back would undo a change made there since; a tmpfs
 * starts empty in any container and is not mounted while the replacement is only created; a read-only mount
 * or root filesystem refuses the write. A path under an anonymous volume is copied: the replacement gets a
 * new, empty one.
 */
export function skipReason(info: Docker.ContainerInspectInfo, path: string): string | undefined {
  if (info.HostConfig.ReadonlyRootfs) return 'the container has a read-only root filesystem';
  const { kept, tmpfs } = keptMountPoints(info);
  if (kept.some((dir) => isUnder(path, dir))) return 'under a bind or named volume the replacement keeps';
  if (tmpfs.some((dir) => isUnder(path, dir))) return 'under a tmpfs';
  if ((info.Mounts ?? []).some((m) => !m.RW && isUnder(path, m.Destination))) return 'under a read-only mount';
  return undefined;
}

// One carry at a time in the whole process, so that the files held never pass COPY_FILE_LIMITS.totalBytes
// even when several containers are replaced at once (--update-concurrency).
let queue: Promise<unknown> = Promise.resolve();

function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

async function readFiles(docker: EngineClient, from: Docker.ContainerInspectInfo, paths: readonly string[], name: string, logger: Logger): Promise<CarriedFile[]> {
  const files: CarriedFile[] = [];
  let total = 0;
  for (const path of paths) {
    const skip = skipReason(from, path);
    if (skip) {
      logger.info({ container: name, path, why: skip }, 'copy-file: path skipped');
      continue;
    }
    let archive;
    try {
      archive = await docker.getArchive(from.Id, path);
    } catch (err) {
      if (isNotFound(err)) {
        logger.info({ container: name, path, why: 'no such file in the container' }, 'copy-file: path skipped');
        continue;
      }
      throw CopyFileError(name, `reading ${path}: ${errorMessage(err)}`);
    }
    const room = Math.min(COPY_FILE_LIMITS.fileBytes, COPY_FILE_LIMITS.totalBytes - total);
    let file: CarriedFile;
    try {
      file = await readOneFile(archive, path, room);
    } catch (err) {
      const limit = room < COPY_FILE_LIMITS.fileBytes ? ` (the files before it leave ${room} of the ${COPY_FILE_LIMITS.totalBytes} bytes allowed in all)` : '';
      throw CopyFileError(name, `${path} refused: ${errorMessage(err)}${limit}`);
    }
    total += file.content.length;
    files.push(file);
  }
  return files;
}

/**
 * Copies the files the copy-file label of `from` names into `toId` (created, not started). Throws
 * TW_ERR_DOCKER_COPY_FILE on any refusal; the caller removes `toId` and leaves `from` as it was.
 */
export async function carryFiles(docker: EngineClient, from: Docker.ContainerInspectInfo, toId: string, name: string, logger: Logger): Promise<void> {
  const paths = copyFilePaths(from.Config.Labels ?? {}, name);
  if (paths.length === 0) return;
  await oneAtATime(async () => {
    const files = await readFiles(docker, from, paths, name, logger);
    if (files.length === 0) return;
    try {
      await docker.putArchive(toId, '/', await packFiles(files));
    } catch (err) {
      throw CopyFileError(name, `writing into the new container: ${errorMessage(err)}`);
    }
    logger.info({ container: name, paths: files.map((f) => f.path) }, 'copy-file: files carried over');
  });
}
