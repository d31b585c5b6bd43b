// Dependency order for a run: dependencies start before their dependents and stop after them.
// Kahn's algorithm over the targets of the run; members of a cycle cannot be ordered and are
// returned apart so the run can skip them with a reason. Everything here is linear in targets plus
// dependency edges, so fleets of thousands cost milliseconds (docs/performance.md#scale).
import type { Target } from './types.js';

export interface DependencyOrder {
  /** Dependencies first. */
  readonly ordered: Target[];
  /** Targets on or behind a dependency cycle. */
  readonly cyclic: Target[];
}

/** For each name, the names of the targets that depend on it directly (each edge once). */
export function directDependents(targets: readonly Target[]): Map<string, string[]> {
  const names = new Set(targets.map((t) => t.name));
  const dependents = new Map<string, string[]>();
  for (const target of targets) {
    for (const dep of new Set(target.dependsOn)) {
      if (dep === target.name || !names.has(dep)) continue;
      const list = dependents.get(dep);
      if (list) list.push(target.name);
      else dependents.set(dep, [target.name]);
    }
  }
  return dependents;
}

export function orderByDependencies(targets: readonly Target[]): DependencyOrder {
  const byName = new Map(targets.map((t) => [t.name, t]));
  const indegree = new Map<string, number>();
  for (const target of targets) {
    indegree.set(target.name, new Set(target.dependsOn.filter((d) => d !== target.name && byName.has(d))).size);
  }
  const dependents = directDependents(targets);
  // Seed in input order so unrelated targets keep the order discovery gave them.
  const queue = targets.filter((t) => indegree.get(t.name) === 0).map((t) => t.name);
  const ordered: Target[] = [];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head] as string;
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

/** Names reachable from `from` over the `dependents` edges, `from` itself excluded unless on a cycle. */
export function reachableDependents(dependents: ReadonlyMap<string, readonly string[]>, from: Iterable<string>): Set<string> {
  const result = new Set<string>();
  const stack = [...from];
  while (stack.length > 0) {
    for (const dependent of dependents.get(stack.pop() as string) ?? []) {
      if (result.has(dependent)) continue;
      result.add(dependent);
      stack.push(dependent);
    }
  }
  return result;
}

/**
 * Names of the targets that depend, directly or through others, on any of `changed`: they must be
 * restarted when those are replaced.
 */
export function transitiveDependents(targets: readonly Target[], changed: ReadonlySet<string>): Set<string> {
  const result = reachableDependents(directDependents(targets), changed);
  for (const name of changed) result.delete(name);
  return result;
}

/**
 * Groups of targets that share no dependency chain with any other group (connected components over
 * every dependency edge among `targets`), each keyed by a representative name: what
 * `--update-concurrency` may replace side by side (docs/performance.md#parallel-updates).
 */
export function dependencyGroups(targets: readonly Target[]): Map<string, string> {
  const parent = new Map<string, string>(targets.map((t) => [t.name, t.name]));
  const find = (name: string): string => {
    let root = name;
    while (parent.get(root) !== root) root = parent.get(root) as string;
    // Path compression keeps later finds near constant.
    let node = name;
    while (node !== root) {
      const next = parent.get(node) as string;
      parent.set(node, root);
      node = next;
    }
    return root;
  };
  for (const target of targets) {
    for (const dep of target.dependsOn) {
      if (!parent.has(dep)) continue;
      const a = find(target.name);
      const b = find(dep);
      if (a !== b) parent.set(a, b);
    }
  }
  return new Map(targets.map((t) => [t.name, find(t.name)]));
}
