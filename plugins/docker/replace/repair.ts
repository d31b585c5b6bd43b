// Repairing what an interrupted replacement left behind, before the first run: the names say it all
// (replace/aside-names.ts). An instance repairs only what it would select itself, so instances with different
// scopes on one engine never undo each other's work.
//
//   staging container (`--tidewatch-new-`)       never held the name: removed
//   `--tidewatch-replaced-`                       its successor was proven: removed
//   old container moved aside (`--tidewatch-old-`):
//     name free                                   renamed back, started if it ran
//     name held by this very process's container  a self-update's predecessor: stopped and removed
//     name held by its unproven replacement       the replacement is removed, the old one restored
//       (the replacement records the old one's id: tidewatch.replaces)
//     name held by anything else                  left alone, logged
import type Docker from 'dockerode';
import { errorMessage } from '../../../core/index.js';
import { restoreAside } from './aside.js';
import { followMovedOwners } from './namespace-follow.js';
import { NAMESPACE_FIELDS, containerModeRef } from './namespaces.js';
import { inspectOrUndefined, removeContainer, stopContainer } from './container-ops.js';
import type { DockerRuntime } from '../runtime.js';
import { stopPolicy } from './stop-policy.js';
import { REPLACES_LABEL, containerName, imageNameOf } from '../target.js';
import { dropSettledJournals, finishRestore } from './snapshot/repair.js';
import { listLeftovers, nameOf, type Leftover, type Leftovers, type RepairReport } from './repair-start.js';

export type { RepairReport } from './repair-start.js';

/**
 * The holder of the name is the replacement the interrupted run created: it records the old container's id
 * (`REPLACES_LABEL`), whatever image either runs (a tag update, a rollback and a digest update alike).
 * A replacement created by a version before that record is recognised by the image name it shares.
 */
function isReplacementOf(holder: Docker.ContainerInspectInfo, old: Docker.ContainerInspectInfo): boolean {
  if (holder.Id === old.Id) return false;
  const recorded = holder.Config.Labels?.[REPLACES_LABEL];
  if (recorded !== undefined) return recorded === old.Id;
  const image = (c: Docker.ContainerInspectInfo) => imageNameOf(c.Config.Image, c.Config.Labels ?? {});
  return image(holder) === image(old) && Date.parse(holder.Created) >= Date.parse(old.Created);
}

async function repairOld(rt: DockerRuntime, leftover: Leftover, report: RepairReport): Promise<void> {
  const { marker } = leftover;
  const old = await inspectOrUndefined(rt.docker, leftover.entry.Id);
  if (!old) return;
  const holder = await inspectOrUndefined(rt.docker, marker.originalName);
  if (holder && holder.Id === rt.ownId()) {
    // We are the successor of a self-update: the predecessor may still be finishing its run.
    await stopContainer(rt.docker, old, await stopPolicy(rt));
    await removeContainer(rt.docker, old.Id, rt.options.removeVolumes);
    report.predecessors.push(marker.originalName);
    return;
  }
  if (holder) {
    if (!isReplacementOf(holder, old)) {
      report.problems.push(`${containerName(old.Name)}: ${marker.originalName} is held by an unrelated container, left alone`);
      return;
    }
    await removeContainer(rt.docker, holder.Id);
    report.removed.push(`${marker.originalName} (unproven replacement)`);
  }
  // Its volumes as at the update's snapshot, before it starts on them (docs/snapshots.md#crash-safety).
  const restored = await finishRestore(rt, old.Id, rt.logger);
  if (restored) report.restored.push(`${marker.originalName} (${restored})`);
  const aside = { id: old.Id, originalName: marker.originalName, wasRunning: marker.wasRunning };
  // Joined to a container replaced since: recreated joined to its successor (replace/namespace-follow.ts).
  if (!(await followMovedOwners(rt, aside))) await restoreAside(rt.docker, aside);
  report.restored.push(marker.originalName);
}

async function repairOne(rt: DockerRuntime, leftover: Leftover, report: RepairReport): Promise<void> {
  try {
    if (leftover.kind === 'old') {
      await repairOld(rt, leftover, report);
    } else {
      await removeContainer(rt.docker, leftover.entry.Id);
      report.removed.push(nameOf(leftover.entry));
    }
  } catch (err) {
    report.problems.push(`${nameOf(leftover.entry)}: ${errorMessage(err)}`);
  }
}

/** The old containers among the leftovers that join another container's namespaces. */
async function joiningIds(rt: DockerRuntime, leftovers: readonly Leftover[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const l of leftovers) {
    if (l.kind !== 'old') continue;
    const info = await inspectOrUndefined(rt.docker, l.entry.Id);
    const host = (info?.HostConfig ?? {}) as Record<string, unknown>;
    if (NAMESPACE_FIELDS.some((field) => containerModeRef(host[field] as string | undefined))) ids.add(l.entry.Id);
  }
  return ids;
}

/** `found`: what the start-up's first look found (repair-start.ts), so the engine is not asked twice. */
export async function repairInterrupted(rt: DockerRuntime, found?: Leftovers): Promise<RepairReport> {
  const report: RepairReport = { restored: [], removed: [], predecessors: [], problems: [] };
  let { own, leftovers } = found ?? (await listLeftovers(rt));
  if (leftovers.length === 0) {
    await dropSettledJournals(rt, rt.logger);
    return report;
  }
  const predecessors = leftovers.filter(
    (l) => l.kind === 'old' && own !== undefined && l.marker.originalName === containerName(own.Name),
  );
  if (predecessors.length > 0) {
    for (const leftover of predecessors) await repairOne(rt, leftover, report);
    // A predecessor stopped halfway through its own run may have left more behind: look again.
    ({ leftovers } = await listLeftovers(rt));
  }
  // Staging containers first: they never held a name, and an old container may need its name back. A
  // container that joins another's namespaces comes after the others are back, and replaced containers last:
  // their names lead such a container to their successors (docs/replacement.md#shared-namespaces).
  const joining = await joiningIds(rt, leftovers);
  const rank = (l: Leftover) => ({ staging: 0, old: joining.has(l.entry.Id) ? 2 : 1, replaced: 3 })[l.kind];
  for (const leftover of [...leftovers].sort((a, b) => rank(a) - rank(b))) {
    await repairOne(rt, leftover, report);
  }
  await dropSettledJournals(rt, rt.logger);
  return report;
}
