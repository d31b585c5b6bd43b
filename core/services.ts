// Typed services plugins offer one another through the core, so a plugin can use what another provides
// without importing it. A key is a name plus the type of what it holds. Each key has one provider: a second
// one is an error, never a silent replacement; a plugin that lists a key in `requires` fails start-up when
// nothing provides it (docs/plugins.md#services). The keys themselves are contracts of the plugins that
// provide them (plugins/<name>/contracts.ts, re-exported by contracts/index.ts), not the core's.
import { errors } from './errors.js';

/** A typed key: `defineService<LocalImages>('local-images')`. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set; carries `T` so provide and get agree on the type. */
  readonly __type?: (value: T) => T;
}

export function defineService<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

/** The services of one core, as plugins see them (`core.services`). */
export interface Services {
  /** Offers `service` under `key`; throws TW_ERR_SERVICE_CONFLICT when another plugin already did. */
  provide<T>(key: ServiceKey<T>, service: T): void;
  /** The service, or undefined when no plugin provides it. */
  get<T>(key: ServiceKey<T>): T | undefined;
  /** The service; throws TW_ERR_SERVICE_MISSING naming the key when no plugin provides it. */
  require<T>(key: ServiceKey<T>): T;
}

export class ServiceRegistry implements Services {
  readonly #services = new Map<string, { provider: string; service: unknown }>();
  /** The plugin being applied: providers are recorded under its name. */
  current = 'embedder';

  provide<T>(key: ServiceKey<T>, service: T): void {
    const existing = this.#services.get(key.name);
    if (existing) throw errors.serviceConflict(key.name, existing.provider, this.current);
    this.#services.set(key.name, { provider: this.current, service });
  }

  get<T>(key: ServiceKey<T>): T | undefined {
    return this.#services.get(key.name)?.service as T | undefined;
  }

  require<T>(key: ServiceKey<T>): T {
    const entry = this.#services.get(key.name);
    if (!entry) throw errors.serviceMissing(key.name, this.current);
    return entry.service as T;
  }

  has(key: ServiceKey<unknown>): boolean {
    return this.#services.has(key.name);
  }
}
