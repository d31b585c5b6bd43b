// What a container depends on, read the way the Watchtower fork reads it: the `depends-on` label, else
// compose's `com.docker.compose.depends_on`, else legacy links and `network_mode: container:<x>`. The
// first source that yields anything wins; `--ipc` and `--pid container:<x>` count as the network form does. Compose and link references name services or aliases, so they
// are resolved against the containers the engine lists into real container names: the core orders
// targets by name.
import { readLabel } from '../../core/index.js';

export const COMPOSE_PROJECT = 'com.docker.compose.project';
export const COMPOSE_SERVICE = 'com.docker.compose.service';
export const COMPOSE_DEPENDS_ON = 'com.docker.compose.depends_on';

/** The facts dependency parsing needs about one container. */
export interface DependencyFacts {
  readonly id: string;
  /** Without the leading slash. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `HostConfig.Links`, e.g. `/db:/web/db`. */
  readonly links: readonly string[];
  /** `HostConfig.NetworkMode`, e.g. `container:db` or `container:<id>`. */
  readonly networkMode: string;
  /** `HostConfig.IpcMode` and `PidMode` when they are `container:<x>` (known only in update runs: an inspect). */
  readonly namespaceModes?: readonly string[];
}

/** Every container the engine listed, for resolving references to names. */
export interface ContainerDirectory {
  readonly byName: ReadonlyMap<string, DependencyFacts>;
  readonly all: readonly DependencyFacts[];
  /** Names by `<project>\0<service>`: looked up once per reference, so a fleet costs linear time. */
  readonly byService: ReadonlyMap<string, readonly string[]>;
}

const serviceKey = (project: string, service: string) => `${project}\u0000${service}`;

export function containerDirectory(containers: readonly DependencyFacts[]): ContainerDirectory {
  const byService = new Map<string, string[]>();
  for (const c of containers) {
    const project = c.labels[COMPOSE_PROJECT];
    const service = c.labels[COMPOSE_SERVICE];
    if (project === undefined || service === undefined) continue;
    const key = serviceKey(project, service);
    const names = byService.get(key);
    if (names) names.push(c.name);
    else byService.set(key, [c.name]);
  }
  return { byName: new Map(containers.map((c) => [c.name, c])), all: containers, byService };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim().replace(/^\//, ''))
    .filter((part) => part !== '');
}

/** `db:service_started:false` → `db` (compose writes service:condition:restart; older versions just the service). */
export function composeServices(label: string): string[] {
  return splitList(label).map((entry) => entry.split(':')[0] as string).filter((s) => s !== '');
}

/** `/db:/web/db` → `db`; `db:alias` → `db`. */
export function linkTarget(link: string): string | undefined {
  const name = link.split(':')[0]?.trim().replace(/^\//, '');
  return name ? name : undefined;
}

/** `container:<name or id>` → the name or id; undefined for any other network mode. */
export function networkModeContainer(networkMode: string): string | undefined {
  if (!networkMode.startsWith('container:')) return undefined;
  const ref = networkMode.slice('container:'.length).replace(/^\//, '');
  return ref || undefined;
}

function byComposeService(directory: ContainerDirectory, project: string, service: string): string[] {
  return [...(directory.byService.get(serviceKey(project, service)) ?? [])];
}

/**
 * A link or network-mode reference as container names: an exact name, an id (or id prefix), then, inside
 * a compose project, `<project>-<ref>` or the project's service of that name.
 */
export function resolveReference(ref: string, self: DependencyFacts, directory: ContainerDirectory): string[] {
  if (directory.byName.has(ref)) return [ref];
  if (/^[0-9a-f]{12,64}$/.test(ref)) {
    const byId = directory.all.find((c) => c.id.startsWith(ref));
    if (byId) return [byId.name];
  }
  const project = self.labels[COMPOSE_PROJECT];
  if (project) {
    const qualified = `${project}-${ref}`;
    if (directory.byName.has(qualified)) return [qualified];
    const services = byComposeService(directory, project, ref);
    if (services.length > 0) return services;
    return [qualified];
  }
  return [ref];
}

export interface DependencyOptions {
  readonly useComposeDependsOn: boolean;
}

/** Names of the containers `container` depends on (never itself), from the first source that has any. */
export function dependenciesOf(
  container: DependencyFacts,
  directory: ContainerDirectory,
  options: DependencyOptions,
): string[] {
  const withoutSelf = (names: string[]) => [...new Set(names)].filter((name) => name !== container.name);

  const label = readLabel(container.labels, 'depends-on');
  if (label !== undefined) {
    const names = withoutSelf(splitList(label));
    if (names.length > 0) return names;
  }

  const compose = container.labels[COMPOSE_DEPENDS_ON];
  const project = container.labels[COMPOSE_PROJECT];
  if (options.useComposeDependsOn && compose) {
    const names = withoutSelf(
      composeServices(compose).flatMap((service) => {
        if (!project) return [service];
        const found = byComposeService(directory, project, service);
        return found.length > 0 ? found : [`${project}-${service}`];
      }),
    );
    if (names.length > 0) return names;
  }

  const refs = container.links.map(linkTarget).filter((ref): ref is string => ref !== undefined);
  // Every `container:` namespace a container joins makes it a dependent of that container (docs/replacement.md#shared-namespaces).
  for (const mode of [container.networkMode, ...(container.namespaceModes ?? [])]) {
    const ref = networkModeContainer(mode);
    if (ref) refs.push(ref);
  }
  return withoutSelf(refs.flatMap((ref) => resolveReference(ref, container, directory)));
}
