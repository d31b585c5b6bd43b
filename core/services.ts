// Typed services plugins offer one another through the core, so that a plugin can use what another
// provides without importing it (plugins import only the core): the runtime knows its local images,
// the registry source can read an image's creation time. A key is a name plus the type of what it
// holds; lookups happen when a tap runs, so the order in which plugins are applied does not matter.
import type { TidewatchCore } from './tidewatch.js';

/** A typed key: `defineService<LocalImages>('local-images')`. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set; carries `T` so provide and get agree on the type. */
  readonly __type?: (value: T) => T;
}

export function defineService<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

const registries = new WeakMap<TidewatchCore, Map<string, unknown>>();

/** Offers `service` under `key` on this core; a later provider of the same key replaces an earlier one. */
export function provideService<T>(core: TidewatchCore, key: ServiceKey<T>, service: T): void {
  let services = registries.get(core);
  if (!services) {
    services = new Map();
    registries.set(core, services);
  }
  services.set(key.name, service);
}

/** The service provided under `key`, or undefined when no plugin provides it. */
export function getService<T>(core: TidewatchCore, key: ServiceKey<T>): T | undefined {
  return registries.get(core)?.get(key.name) as T | undefined;
}

/** The runtime's local image store: what no-pull compares against. */
export interface LocalImages {
  /** The local image a reference (`repo:tag`) names now, or undefined when there is none. */
  inspectImage(reference: string, signal?: AbortSignal): Promise<{ readonly id: string } | undefined>;
}
export const LOCAL_IMAGES: ServiceKey<LocalImages> = defineService<LocalImages>('local-images');

/** Facts about an image on its registry, read without pulling it: what the cooldown gate needs. */
export interface RemoteImages {
  /**
   * The `created` time of the image config behind `reference` (a tag or a digest; an index is
   * resolved to `platform`, `os/arch[/variant]`, default the service's own), or undefined when the
   * config has none. Throws when it cannot be read.
   */
  created(reference: string, options?: { platform?: string; signal?: AbortSignal }): Promise<Date | undefined>;
}
export const REMOTE_IMAGES: ServiceKey<RemoteImages> = defineService<RemoteImages>('remote-images');
