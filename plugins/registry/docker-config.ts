// Reading the Docker `config.json` (docs/private-registries.md) the way the docker CLI writes it: `auths` (base64 `auth`,
// `identitytoken`, or the legacy `username`/`password`), `credsStore` and `credHelpers`. Keys may be
// hostnames or URLs (`https://index.docker.io/v1/`), so lookups compare normalised hostnames.
import { TidewatchError } from '../../core/index.js';
import { readFile, stat } from '../../contracts/shared/node-fs.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isDockerHub } from './endpoint.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { statSync } = process.getBuiltinModule('node:fs');

export interface AuthEntry {
  readonly username?: string;
  readonly password?: string;
  readonly identityToken?: string;
}

export interface DockerConfig {
  readonly auths: ReadonlyMap<string, AuthEntry>;
  readonly credsStore?: string;
  readonly credHelpers: ReadonlyMap<string, string>;
}

const EMPTY: DockerConfig = { auths: new Map(), credHelpers: new Map() };

/** Watchtower's default directory: its users mount `~/.docker/config.json:/config.json`. */
export const WATCHTOWER_CONFIG_DIR = '/';

/** Whether something is at the path (a directory counts: a bind mount of a missing host file makes one). */
function present(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Where config.json is looked for (docs/private-registries.md): `$DOCKER_CONFIG/config.json`; else
 * `/config.json`, as Watchtower and its fork read it, so their compose files keep their credentials with
 * only the image changed; else `~/.docker/config.json`, as the docker CLI reads it on a host. A directory
 * at `/config.json` (Docker made one for a host file that did not exist) is chosen too, so the check names
 * it rather than silently going anonymous.
 */
export function defaultDockerConfigDir(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = present): string {
  if (env.DOCKER_CONFIG) return env.DOCKER_CONFIG;
  if (exists(join(WATCHTOWER_CONFIG_DIR, 'config.json'))) return WATCHTOWER_CONFIG_DIR;
  return join(homedir(), '.docker');
}

/**
 * The canonical key of a registry name or config.json key: `https://index.docker.io/v1/`,
 * `docker.io` and `registry-1.docker.io` all become `docker.io`; `http://host:5000/v2/` becomes `host:5000`.
 */
export function normaliseRegistryKey(key: string): string {
  let host = key.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const slash = host.indexOf('/');
  if (slash !== -1) host = host.slice(0, slash);
  host = host.toLowerCase();
  return isDockerHub(host) ? 'docker.io' : host;
}

function decodeAuth(auth: string): { username: string; password: string } | undefined {
  const text = Buffer.from(auth, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseEntry(raw: unknown): AuthEntry | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const auth = asString(r.auth);
  const decoded = auth ? decodeAuth(auth) : undefined;
  const username = decoded?.username ?? asString(r.username);
  const password = decoded?.password ?? asString(r.password);
  const identityToken = asString(r.identitytoken);
  if (!identityToken && (username === undefined || password === undefined)) return undefined;
  return {
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined && !identityToken ? { password } : {}),
    ...(identityToken ? { identityToken } : {}),
  };
}

export function parseDockerConfig(text: string): DockerConfig {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const auths = new Map<string, AuthEntry>();
  const rawAuths = raw.auths;
  if (rawAuths && typeof rawAuths === 'object') {
    for (const [key, value] of Object.entries(rawAuths as Record<string, unknown>)) {
      const entry = parseEntry(value);
      const normalised = normaliseRegistryKey(key);
      // The exact docker CLI key wins over a looser alias of the same host.
      if (entry && !auths.has(normalised)) auths.set(normalised, entry);
    }
  }
  const credHelpers = new Map<string, string>();
  const rawHelpers = raw.credHelpers;
  if (rawHelpers && typeof rawHelpers === 'object') {
    for (const [key, value] of Object.entries(rawHelpers as Record<string, unknown>)) {
      const helper = asString(value);
      if (helper) credHelpers.set(normaliseRegistryKey(key), helper);
    }
  }
  const credsStore = asString(raw.credsStore);
  return credsStore ? { auths, credsStore, credHelpers } : { auths, credHelpers };
}

interface CachedConfig {
  readonly stamp: string;
  readonly config: DockerConfig;
}

/** Reads config.json again only when its mtime or size changed; a missing file is an empty config. */
export class DockerConfigReader {
  readonly file: string;
  #cached: CachedConfig | undefined;

  constructor(dir: string) {
    this.file = join(dir, 'config.json');
  }

  /** Changes whenever the file does: credential caches key on it. */
  async stamp(): Promise<string> {
    try {
      const s = await stat(this.file);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'missing';
    }
  }

  async read(): Promise<DockerConfig> {
    const stamp = await this.stamp();
    if (this.#cached?.stamp === stamp) return this.#cached.config;
    let config = EMPTY;
    if (stamp !== 'missing') {
      try {
        config = parseDockerConfig(await readFile(this.file, 'utf8'));
      } catch (err) {
        throw new TidewatchError('TW_ERR_REGISTRY_CONFIG', `cannot read ${this.file}: ${err instanceof Error ? err.message : String(err)}`, 500);
      }
    }
    this.#cached = { stamp, config };
    return config;
  }
}
