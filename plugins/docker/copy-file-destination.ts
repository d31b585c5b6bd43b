// Where a copy-file path would land in the NEW container (docs/watchtower-fork.md#the-copy-file-label). The new
// image is the publisher's: it may make `/etc/app` a symbolic link to a bind-mount point, and the engine resolves
// links inside the container when it extracts the archive, so a file meant for the container's own layer would be
// written into a host directory, as root. Comparing path strings on the old container cannot see that; this judges
// the destination where it is written: every parent directory (and the path itself) is stat'ed in the created, not
// yet started container (nothing runs in it, so nothing changes between the stat and the write), and a path under
// any of its mounts is left alone.
import type Docker from 'dockerode';
import { posix } from 'node:path';
import type { ContainerPathStat, EngineClient } from './engine/client.js';

/** Go's os.ModeSymlink, as the engine reports it in the stat's `mode`. */
const GO_MODE_SYMLINK = 2 ** 27;

/**
 * Docker fills `linkTarget` only for a link; Podman fills it for every path, with the path resolved: a target
 * other than the path itself is a link either way.
 */
function isSymlink(stat: ContainerPathStat, path: string): boolean {
  const target = stat.linkTarget ?? '';
  return Math.floor(stat.mode / GO_MODE_SYMLINK) % 2 === 1 || (target !== '' && target !== path);
}

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** Every mount point of the created container: the engine's own list and what its HostConfig asks for. */
export function mountPointsOf(info: Docker.ContainerInspectInfo): string[] {
  const host = info.HostConfig ?? {};
  const points = new Set<string>();
  for (const m of info.Mounts ?? []) if (m.Destination) points.add(m.Destination);
  for (const bind of host.Binds ?? []) {
    const target = bind.split(':')[1];
    if (target) points.add(target);
  }
  for (const m of host.Mounts ?? []) if (m.Target) points.add(m.Target);
  for (const dir of Object.keys(host.Tmpfs ?? {})) points.add(dir);
  return [...points].map((p) => posix.normalize(p));
}

/** `/a/b/c` → `['/a', '/a/b', '/a/b/c']`. */
function prefixes(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

/**
 * Why `path` must not be written into the created container `info`, or undefined when it may be. The
 * reason reads after `copy-file: ` in the log and the audit (`/etc/app is a symbolic link in the new image`).
 */
export async function destinationRefusal(docker: EngineClient, info: Docker.ContainerInspectInfo, path: string): Promise<string | undefined> {
  const mount = mountPointsOf(info).find((dir) => isUnder(path, dir));
  if (mount !== undefined) return `${path} is under the mount ${mount} in the new container`;
  for (const step of prefixes(path)) {
    const stat = await docker.statPath(info.Id, step);
    // Nothing there: the engine creates the rest as plain directories, no link can be below.
    if (stat === undefined) return undefined;
    if (isSymlink(stat, step)) return `${step} is a symbolic link in the new image`;
  }
  return undefined;
}
