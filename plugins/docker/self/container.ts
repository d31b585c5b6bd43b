// Which container this process runs in, if any. Docker bind-mounts /etc/hostname, /etc/hosts and
// /etc/resolv.conf from `<data-root>/containers/<id>/`, which /proc/self/mountinfo shows on every cgroup
// version; cgroup v1 paths name the id too. The hostname (Docker's default is the short id) is the last
// resort and only trusted when it matches a listed container. Only the mount points of this process's own
// files are read, so on a host that runs containers the host's view of their mounts is never mistaken for
// ours. Podman (docs/podman.md) keeps those files under `<runroot>/overlay-containers/<id>/userdata/` and
// names cgroups `libpod-<id>`.
import { readFile } from '../../../contracts/shared/node-fs.js';
import { hostname } from 'node:os';

const OWN_FILES = new Set(['/etc/hostname', '/etc/hosts', '/etc/resolv.conf']);

/** The container id from /proc/self/mountinfo text, or undefined. */
export function containerIdFromMountinfo(text: string): string | undefined {
  for (const line of text.split('\n')) {
    // Fields: id parent major:minor root mount-point options …
    const fields = line.split(' ');
    const root = fields[3];
    const mountPoint = fields[4];
    if (!root || !mountPoint || !OWN_FILES.has(mountPoint)) continue;
    const match = /[/-]containers\/([0-9a-f]{64})\//.exec(root);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * The container id from /proc/self/cgroup text (v1 `/docker/<id>`, systemd `docker-<id>.scope`, Podman's
 * `libpod-<id>` and `libpod-<id>.scope`), or undefined.
 */
export function containerIdFromCgroup(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const path = line.split(':').slice(2).join(':');
    const match = /(?:\/docker\/|docker-|libpod-)([0-9a-f]{64})(?:\.scope)?(?:\/|$)/.exec(path);
    if (match) return match[1];
  }
  return undefined;
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

/** The id found in this process's mountinfo or cgroup files, or undefined outside a container. */
export async function detectOwnContainerId(): Promise<string | undefined> {
  const fromMounts = containerIdFromMountinfo(await readOrEmpty('/proc/self/mountinfo'));
  if (fromMounts) return fromMounts;
  return containerIdFromCgroup(await readOrEmpty('/proc/self/cgroup'));
}

/** The listed container whose short id is this host's name (Docker's default hostname), if any. */
export function containerIdFromHostname(ids: readonly string[], name = hostname()): string | undefined {
  if (!/^[0-9a-f]{12}$/.test(name)) return undefined;
  const matches = ids.filter((id) => id.startsWith(name));
  return matches.length === 1 ? matches[0] : undefined;
}
