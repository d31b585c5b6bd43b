// Which volumes a snapshot covers (docs/snapshots.md#what-is-covered): the container's named volumes mounted
// read-write. Bind mounts, tmpfs and read-only volumes are not. A volume with another mount inside it is
// refused: its archive would hold that mount's files, and emptying it for a restore would empty that mount too.
import type Docker from 'dockerode';
import { readLabel } from '../../../../core/index.js';
import { SNAPSHOT_VOLUMES, type Snapshots } from '../../../../contracts/index.js';

export interface SnapshotMount {
  readonly name: string;
  readonly destination: string;
}

/** Why a container's volumes cannot be snapshotted, or its volumes. */
export function snapshotMounts(info: Docker.ContainerInspectInfo): SnapshotMount[] | { refused: string } {
  const mounts = (info.Mounts ?? []) as { Type?: string; Name?: string; Destination: string; RW?: boolean }[];
  const volumes = mounts
    .filter((m) => m.Type === 'volume' && m.RW === true && m.Name)
    .map((m) => ({ name: m.Name as string, destination: m.Destination }));
  for (const volume of volumes) {
    const inner = mounts.find((m) => m.Destination !== volume.destination && m.Destination.startsWith(`${volume.destination.replace(/\/$/, '')}/`));
    if (inner) return { refused: `snapshot: a mount at ${inner.Destination} is inside volume ${volume.name}` };
    if (volume.destination === '/') return { refused: `snapshot: volume ${volume.name} is mounted at /` };
  }
  return volumes;
}

/**
 * Whether the update takes a snapshot: `true`, `false`, or the reason to skip the update (asked for, and it
 * cannot be kept). `--snapshot-volumes` asks for every container; the label `tidewatch.snapshot=volumes` for one.
 */
export function snapshotWanted(labels: Readonly<Record<string, string>>, snapshots: Snapshots | undefined): boolean | string {
  const label = readLabel(labels, 'snapshot')?.trim().toLowerCase();
  const asked = label === SNAPSHOT_VOLUMES || (label === undefined && snapshots?.settings.all === true);
  if (!asked) return false;
  if (!snapshots?.settings.available) return 'snapshot needs --data-dir';
  return true;
}
