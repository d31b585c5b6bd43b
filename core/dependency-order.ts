// Dependency order for a run: dependencies start before their dependents and stop after them.
// Kahn's algorithm over the targets of the run; members of a cycle cannot be ordered and are
// returned apart so the run can skip them with a reason. Everything here is linear in targets plus
// dependency edges, so fleets of thousands cost milliseconds (docs/performance.md#scale).
import type { Target } from './types.js';

/**
 * A target's identity among the run's targets: its name, qualified by its engine and kind when it has them,
 * since names repeat across engines and a Swarm service may share a container's name (docs/hosts.md). The
 * maps and sets below are keyed by it; a name in `dependsOn` means the target of that name on the same
 * engine and of the same kind. Without `host` and `kind` the key is the name itself.
 */
export function targetKey(target: Target): string {
  return keyOf(target, target.name);
}

function keyOf(target: Target, name: string): string {
  return target.host === undefined && target.kind === undefined ? name : `${target.host ?? ''}\u0000${target.kind ?? ''}\u0000${name}`;
}

/** The keys of the targets `target` depends on (they may not be among the run's targets). */
function dependencyKeys(target: Target): Set<string> {
  return new Set(target.dependsOn.map((name) => keyOf(target, name)));
}

export interface DependencyOrder {
  /** Dependencies first. */
  readonly ordered: Target[];
  /** Targets on or behind a dependency cycle. */
  readonly cyclic: Target[];
}

/** For each key, the keys of the targets that depend on it directly (each edge once). */
export function directDependents(targets: readonly Target[]): Map<string, string[]> {
  const keys = new Set(targets.map(targetKey));
  const dependents = new Map<string, string[]>();
  for (const target of targets) {
    const key = targetKey(target);
    for (const dep of dependencyKeys(target)) {
      if (dep === key || !keys.has(dep)) continue;
      const list = dependents.get(dep);
      if (list) list.push(key);
      else dependents.set(dep, [key]);
    }
  }
  return dependents;
}

export function orderByDependencies(targets: readonly Target[]): DependencyOrder {
  const byKey = new Map(targets.map((t) => [targetKey(t), t]));
  const indegree = new Map<string, number>();
  for (const target of targets) {
    const key = targetKey(target);
    indegree.set(key, [...dependencyKeys(target)].filter((d) => d !== key && byKey.has(d)).length);
  }
  const dependents = directDependents(targets);
  // Seed in input order so unrelated targets keep the order discovery gave them.
  const queue = targets.map(targetKey).filter((key) => indegree.get(key) === 0);
  const ordered: Target[] = [];
  for (let head = 0; head < queue.length; head++) {
    const key = queue[head] as string;
    ordered.push(byKey.get(key) as Target);
    for (const dependent of dependents.get(key) ?? []) {
      const left = (indegree.get(dependent) ?? 0) - 1;
      indegree.set(dependent, left);
      if (left === 0) queue.push(dependent);
    }
  }
  const placed = new Set(ordered.map(targetKey));
  return { ordered, cyclic: targets.filter((t) => !placed.has(targetKey(t))) };
}

/** Keys reachable from `from` over the `dependents` edges, `from` itself excluded unless on a cycle. */
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
 * Keys of the targets that depend, directly or through others, on any of `changed` (keys): they must be
 * restarted when those are replaced.
 */
export function transitiveDependents(targets: readonly Target[], changed: ReadonlySet<string>): Set<string> {
  const result = reachableDependents(directDependents(targets), changed);
  for (const name of changed) result.delete(name);
  return result;
}

/**
 * Groups of targets that share no dependency chain with any other group (connected components over
 * every dependency edge among `targets`), each target's key mapped to a representative key: what
 * `--update-concurrency` may replace side by side (docs/performance.md#parallel-updates).
 */
export function dependencyGroups(targets: readonly Target[]): Map<string, string> {
  const parent = new Map<string, string>(targets.map((t) => [targetKey(t), targetKey(t)]));
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
    for (const dep of dependencyKeys(target)) {
      if (!parent.has(dep)) continue;
      const a = find(targetKey(target));
      const b = find(dep);
      if (a !== b) parent.set(a, b);
    }
  }
  return new Map(targets.map((t) => [targetKey(t), find(targetKey(t))]));
}
