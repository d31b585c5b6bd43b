// The start-up repair's first look (replace/repair.ts, docs/hosts.md#start-up): one list of the containers whose
// names a replacement gives (those this instance would select), and the snapshot journal. Only when either holds
// something does the repair itself load, with the parts of the replacement path it reuses
// (docs/plugins.md#loading-code-at-first-use): an engine with nothing to repair, every start but the one after an
// interrupted update, costs the list and no code.
import type Docker from 'dockerode';
import { selectionFilter, type Target } from '../../../core/index.js';
import { firstUse } from '../../../contracts/shared/first-use.js';
import type { DockerRuntime } from '../runtime.js';
import { effectiveScope } from '../selection.js';
import { RUNTIME, containerName } from '../target.js';
import { ASIDE_MARKER, parseOldAsideName, parseReplacedName, parseStagingName, type AsideName } from './aside-names.js';
import { inspectOrUndefined } from './container-ops.js';

export interface RepairReport {
  readonly restored: string[];
  readonly removed: string[];
  readonly predecessors: string[];
  readonly problems: string[];
}

const repair = firstUse(() => import('./repair.js'));

/** What this instance would repair, and its own container when it runs in one there and something is left. */
export interface Leftovers {
  readonly own: Docker.ContainerInspectInfo | undefined;
  readonly leftovers: Leftover[];
}

export interface Leftover {
  readonly entry: Docker.ContainerInfo;
  readonly marker: AsideName;
  readonly kind: 'old' | 'staging' | 'replaced';
}

export function nameOf(entry: Docker.ContainerInfo): string {
  return containerName(entry.Names[0] ?? '');
}

function leftoverOf(entry: Docker.ContainerInfo): Leftover | undefined {
  const name = nameOf(entry);
  const old = parseOldAsideName(name);
  if (old) return { entry, marker: old, kind: 'old' };
  const staging = parseStagingName(name);
  if (staging) return { entry, marker: staging, kind: 'staging' };
  const replaced = parseReplacedName(name);
  if (replaced) return { entry, marker: replaced, kind: 'replaced' };
  return undefined;
}

/** A listed container as a Target under its original name, for the instance's own selection filters. */
function asTarget(entry: Docker.ContainerInfo, name: string): Target {
  return {
    runtime: RUNTIME,
    id: entry.Id,
    name,
    image: entry.Image,
    imageId: entry.ImageID,
    repoDigests: [],
    labels: entry.Labels ?? {},
    imageLabels: {},
    state: entry.State,
    dependsOn: [],
    isSelf: false,
  };
}

function selected(rt: DockerRuntime, own: Docker.ContainerInspectInfo | undefined, leftovers: Leftover[]): Leftover[] {
  const ownTargets = own ? [asTarget(listedOf(own), containerName(own.Name))] : [];
  const scope = effectiveScope(rt.options.scope, ownTargets, rt.ownId());
  const candidates = leftovers.map((l) => asTarget(l.entry, l.marker.originalName));
  // The shared selection rules (docs/configuration.md#shared-options), read from this instance's options.
  const selected = selectionFilter({ ...rt.options, scope });
  const keep = new Set(candidates.filter(selected).map((t) => t.id));
  return leftovers.filter((l) => keep.has(l.entry.Id));
}

/** The few list fields the repair reads, from an inspect (the own container's). */
function listedOf(info: Docker.ContainerInspectInfo): Docker.ContainerInfo {
  return { Id: info.Id, Names: [info.Name], Image: info.Config.Image, ImageID: info.Image, Labels: info.Config.Labels ?? {}, State: info.State.Status } as Docker.ContainerInfo;
}

/**
 * Only the containers a replacement renamed or staged: the engine filters by name (a substring of every name
 * aside-names.ts gives), so an engine with nothing to repair answers with an empty list rather than every
 * container it has (docs/hosts.md#start-up). The own container, when Tidewatch runs in one on this engine, is
 * inspected for its scope label and its name (a self-update's predecessor), and only when something is left.
 */
export async function listLeftovers(rt: DockerRuntime): Promise<Leftovers> {
  const listed = await rt.docker.listContainers({ all: true, filters: { name: [ASIDE_MARKER] } });
  const leftovers = listed.map(leftoverOf).filter((l): l is Leftover => l !== undefined);
  if (leftovers.length === 0) return { own: undefined, leftovers };
  const ownId = rt.ownId();
  const own = ownId ? await inspectOrUndefined(rt.docker, ownId) : undefined;
  return { own, leftovers: selected(rt, own, leftovers) };
}

/** What repair.ts's `repairInterrupted` reports, asked of it only when something is left to repair. */
export async function repairAtStartup(rt: DockerRuntime): Promise<RepairReport> {
  const found = await listLeftovers(rt);
  if (found.leftovers.length === 0 && (rt.options.snapshots?.()?.journals().length ?? 0) === 0) {
    return { restored: [], removed: [], predecessors: [], problems: [] };
  }
  return (await repair()).repairInterrupted(rt, found);
}
