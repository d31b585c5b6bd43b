// Dependency order for a run: dependencies start before their dependents and stop after them.
// Kahn's algorithm over the targets of the run; members of a cycle cannot be ordered and are
// returned apart so the run can skip them with a reason.
import type { Target } from './types.js';

export interface DependencyOrder {
  /** Dependencies first. */
  readonly ordered: Target[];
  /** Targets on or behind a dependency cycle. */
  readonly cyclic: Target[];
}

export function orderByDependencies(targets: readonly Target[]): DependencyOrder {
  const byName = new Map(targets.map((t) => [t.name, t]));
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const target of targets) {
    const deps = new Set(target.dependsOn.filter((d) => d !== target.name && byName.has(d)));
    indegree.set(target.name, deps.size);
    for (const dep of deps) dependents.set(dep, [...(dependents.get(dep) ?? []), target.name]);
  }
  // Seed in input order so unrelated targets keep the order discovery gave them.
  const queue = targets.filter((t) => indegree.get(t.name) === 0).map((t) => t.name);
  const ordered: Target[] = [];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    ordered.push(byName.get(name) as Target);
    for (const dependent of dependents.get(name) ?? []) {
      const left = (indegree.get(dependent) ?? 0) - 1;
      indegree.set(dependent, left);
      if (left === 0) queue.push(dependent);
    }
  }
  const placed = new Set(ordered.map((t) => t.name));
  return { ordered, cyclic: targets.filter((t) => !placed.has(t.name)) };
}

/**
 * Names of the targets that depend, directly or through others, on any of `changed`: they must be
 * restarted when those are replaced.
 */
export function transitiveDependents(targets: readonly Target[], changed: ReadonlySet<string>): Set<string> {
  const result = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const target of targets) {
      if (changed.has(target.name) || result.has(target.name)) continue;
      if (target.dependsOn.some((dep) => changed.has(dep) || result.has(dep))) {
        result.add(target.name);
        grew = true;
      }
    }
  }
  return result;
}
