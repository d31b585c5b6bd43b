// Which credentials to use for a registry, in the docker CLI's order: a per-registry `credHelpers`
// entry, else the global `credsStore`, else the `auths` entry of config.json; then REPO_USER/REPO_PASS
// (Watchtower's fallback for every registry). The same lookup feeds the registry client and, through
// `registryAuthFor`, the engine's pull, so a check and the pull after it authenticate alike.
import { parseImageReference } from '../../core/index.js';
import { runCredentialHelper } from './credential-helper.js';
import { DockerConfigReader, defaultDockerConfigDir, normaliseRegistryKey, type DockerConfig } from './docker-config.js';

export interface Credentials {
  readonly username?: string;
  readonly password?: string;
  /** An OAuth2 refresh token (`identitytoken` in config.json, `<token>` from a helper). */
  readonly identityToken?: string;
  /** Where they came from, for logs (never the secret itself). */
  readonly source: string;
}

export interface CredentialOptions {
  /** Directory of config.json; default `DOCKER_CONFIG`, else `/` when `/config.json` exists, else `~/.docker`. */
  readonly dockerConfigDir?: string;
  /** Fallback credentials for every registry (REPO_USER / REPO_PASS). */
  readonly repoUser?: string;
  readonly repoPass?: string;
  /** How long a credential helper may take (default 10 s). */
  readonly helperTimeoutMs?: number;
}

/** Docker's `AuthConfig`, as the engine's pull takes it (dockerode's `authconfig`). */
export interface RegistryAuthConfig {
  readonly username?: string;
  readonly password?: string;
  readonly identitytoken?: string;
  readonly serveraddress: string;
}

/** How long a lookup (possibly a helper process) is reused while config.json is unchanged. */
const CACHE_MS = 2 * 60_000;

/** The server URL helpers and the engine expect: Hub's historical v1 URL, the bare host otherwise. */
export function serverAddressFor(registry: string): string {
  return normaliseRegistryKey(registry) === 'docker.io' ? 'https://index.docker.io/v1/' : registry;
}

export class CredentialStore {
  readonly #reader: DockerConfigReader;
  readonly #options: CredentialOptions;
  readonly #cache = new Map<string, { stamp: string; at: number; value: Promise<Credentials | undefined> }>();

  constructor(options: CredentialOptions = {}) {
    this.#options = options;
    this.#reader = new DockerConfigReader(options.dockerConfigDir ?? defaultDockerConfigDir());
  }

  /** Credentials for `registry` (a reference's registry name), or undefined for anonymous access. */
  async lookup(registry: string): Promise<Credentials | undefined> {
    const key = normaliseRegistryKey(registry);
    const stamp = await this.#reader.stamp();
    const hit = this.#cache.get(key);
    if (hit && hit.stamp === stamp && Date.now() - hit.at < CACHE_MS) return hit.value;
    const value = this.#resolve(registry, key);
    this.#cache.set(key, { stamp, at: Date.now(), value });
    // A failing helper must be retried next time, not remembered.
    value.catch(() => this.#cache.delete(key));
    return value;
  }

  async #resolve(registry: string, key: string): Promise<Credentials | undefined> {
    const config = await this.#reader.read();
    return (await this.#fromConfig(config, registry, key)) ?? this.#fallback();
  }

  async #fromConfig(config: DockerConfig, registry: string, key: string): Promise<Credentials | undefined> {
    const helper = config.credHelpers.get(key) ?? config.credsStore;
    if (helper) {
      const found = await runCredentialHelper(helper, serverAddressFor(registry), {
        ...(this.#options.helperTimeoutMs !== undefined ? { timeoutMs: this.#options.helperTimeoutMs } : {}),
      });
      if (found) return { ...found, source: `docker-credential-${helper}` };
    }
    const entry = config.auths.get(key);
    if (entry) return { ...entry, source: `${this.#reader.file} auths` };
    return undefined;
  }

  #fallback(): Credentials | undefined {
    const { repoUser, repoPass } = this.#options;
    if (!repoUser || repoPass === undefined) return undefined;
    return { username: repoUser, password: repoPass, source: 'REPO_USER/REPO_PASS' };
  }
}

/**
 * Credentials for pulling `imageRef` through the Docker engine (`docker.pull(ref, { authconfig })`),
 * found exactly as the registry source finds them; undefined for anonymous pulls.
 */
export function registryAuthFor(imageRef: string, options: CredentialOptions = {}): Promise<RegistryAuthConfig | undefined> {
  return pullAuth(new CredentialStore(options), imageRef);
}

/** The same, from a store whose lookups (and helper runs) are cached across calls. */
export async function pullAuth(store: CredentialStore, imageRef: string): Promise<RegistryAuthConfig | undefined> {
  const { registry } = parseImageReference(imageRef);
  const found = await store.lookup(registry);
  if (!found) return undefined;
  const serveraddress = serverAddressFor(registry);
  if (found.identityToken) return { identitytoken: found.identityToken, serveraddress };
  return {
    ...(found.username !== undefined ? { username: found.username } : {}),
    ...(found.password !== undefined ? { password: found.password } : {}),
    serveraddress,
  };
}
