// The start-up repair's first look (replace/repair.ts, docs/hosts.md#start-up): one list of the containers whose
// names a replacement gives, and the snapshot journal. Only when either holds something does the repair itself
// load, with the parts of the replacement path it reuses (docs/plugins.md#loading-code-at-first-use): an engine
// with nothing to repair, every start but the one after an interrupted update, costs the list and no code.
import type Docker from 'dockerode';
import { firstUse } from '../../../contracts/shared/first-use.js';
import type { DockerRuntime } from '../runtime.js';
import { containerName } from '../target.js';
import { ASIDE_MARKER, parseOldAsideName, parseReplacedName, parseStagingName } from './aside-names.js';

export interface RepairReport {
  readonly restored: string[];
  readonly removed: string[];
  readonly predecessors: string[];
  readonly problems: string[];
}

const repair = firstUse(() => import('./repair.js'));

function leftBehind(entry: Docker.ContainerInfo): boolean {
  const name = containerName(entry.Names[0] ?? '');
  return parseOldAsideName(name) !== undefined || parseStagingName(name) !== undefined || parseReplacedName(name) !== undefined;
}

/** What repair.ts's `repairInterrupted` reports, asked of it only when something is left to repair. */
export async function repairAtStartup(rt: DockerRuntime): Promise<RepairReport> {
  // The engine filters by name (a substring of every name aside-names.ts gives): usually an empty answer.
  const listed = await rt.docker.listContainers({ all: true, filters: { name: [ASIDE_MARKER] } });
  if (!listed.some(leftBehind) && (rt.options.snapshots?.()?.journals().length ?? 0) === 0) {
    return { restored: [], removed: [], predecessors: [], problems: [] };
  }
  return (await repair()).repairInterrupted(rt, listed);
}
