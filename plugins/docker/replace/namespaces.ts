// Containers that join another container's namespaces (docs/replacement.md#shared-namespaces):
// `--network container:<x>` (Compose's `network_mode: service:x`), `--ipc container:<x>`, `--pid container:<x>`.
// The engine stores each reference by the id of <x> at create time, so when <x> is replaced the child still
// names the old, removed container: a restart fails ("No such container") or leaves it in a namespace nothing
// else shares. A child is therefore a dependent of <x> (it is stopped before and recreated after <x>'s
// replacement, rollback or repair), and whenever it is created again each reference is pointed at the live
// container that now holds <x>'s name.
import type Docker from 'dockerode';
import { mapBounded } from '../../../core/index.js';
import type { EngineClient } from '../engine/client.js';
import { parseOldAsideName, parseReplacedName } from './aside-names.js';
import { inspectOrUndefined } from './container-ops.js';
import { containerName } from '../target.js';

/** The HostConfig fields that may hold `container:<ref>`. */
export const NAMESPACE_FIELDS = ['NetworkMode', 'IpcMode', 'PidMode'] as const;
type NamespaceField = (typeof NAMESPACE_FIELDS)[number];

/** `container:<name or id>` → the name or id; undefined for any other mode. */
export function containerModeRef(mode: string | undefined): string | undefined {
  if (!mode?.startsWith('container:')) return undefined;
  const ref = mode.slice('container:'.length).replace(/^\//, '');
  return ref || undefined;
}

/**
 * The IPC and PID modes of listed containers, which the container list leaves out. A container's HostConfig
 * never changes, so each container is inspected once per process; ids no longer listed are forgotten.
 */
export class NamespaceModes {
  readonly #known = new Map<string, readonly string[]>();

  async of(docker: EngineClient, ids: readonly string[], concurrency: number, signal?: AbortSignal): Promise<ReadonlyMap<string, readonly string[]>> {
    const listed = new Set(ids);
    for (const id of this.#known.keys()) if (!listed.has(id)) this.#known.delete(id);
    const unknown = ids.filter((id) => !this.#known.has(id));
    await mapBounded(unknown, concurrency, async (id) => {
      const info = await docker.getContainer(id).inspect({ signal }).catch(() => undefined);
      if (!info) return;
      const host = info.HostConfig as Docker.HostConfig & { PidMode?: string };
      this.#known.set(id, [host.IpcMode, host.PidMode].filter((mode): mode is string => containerModeRef(mode) !== undefined));
    });
    return this.#known;
  }
}

/**
 * The container that holds `ref`'s namespaces now: `ref` itself while it is live; when it was moved aside
 * by a replacement (old or replaced marker), whatever holds its original name since. Undefined when `ref` no
 * longer exists at all.
 */
export async function liveOwner(docker: EngineClient, ref: string): Promise<{ refId: string; liveId: string } | undefined> {
  const owner = await inspectOrUndefined(docker, ref);
  if (!owner) return undefined;
  const name = containerName(owner.Name);
  const marker = parseOldAsideName(name) ?? parseReplacedName(name);
  const holder = marker ? await inspectOrUndefined(docker, marker.originalName) : undefined;
  return { refId: owner.Id, liveId: holder?.Id ?? owner.Id };
}

/** `hostConfig` with each `container:` reference pointed at its live owner; `changed` when one moved. */
export async function followOwners(
  docker: EngineClient,
  hostConfig: Docker.HostConfig,
): Promise<{ hostConfig: Docker.HostConfig; changed: boolean }> {
  const result = { ...hostConfig } as Docker.HostConfig & Partial<Record<NamespaceField, string>>;
  let changed = false;
  for (const field of NAMESPACE_FIELDS) {
    const ref = containerModeRef(result[field]);
    if (!ref) continue;
    const owner = await liveOwner(docker, ref);
    if (owner && owner.liveId !== owner.refId) {
      result[field] = `container:${owner.liveId}`;
      changed = true;
    }
  }
  return { hostConfig: result, changed };
}

/**
 * The running containers joined to `owner`'s namespaces (by its id or name), other than `known` ones: a run
 * targeted at the owner (a rollback, `?container=`) has not discovered them as its dependents.
 */
export async function joinedContainers(
  docker: EngineClient,
  modes: NamespaceModes,
  owner: Docker.ContainerInspectInfo,
  known: ReadonlySet<string>,
): Promise<string[]> {
  const running = (await docker.listContainers({ all: true })).filter((c) => !known.has(c.Id) && c.Id !== owner.Id);
  const byId = await modes.of(docker, running.map((c) => c.Id), 8);
  const names = new Set([owner.Id, containerName(owner.Name)]);
  const joins = (mode: string | undefined) => {
    const ref = containerModeRef(mode);
    return ref !== undefined && (names.has(ref) || (ref.length >= 12 && owner.Id.startsWith(ref)));
  };
  return running
    .filter((c) => c.State === 'running' && [c.HostConfig?.NetworkMode, ...(byId.get(c.Id) ?? [])].some(joins))
    .map((c) => c.Id);
}
