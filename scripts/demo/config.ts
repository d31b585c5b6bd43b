// The demo's settings (docs/demo.md): where its private engine and registries live and where Tidewatch
// listens. They have their own variables, not the test environment's: a developer who exported
// TIDEWATCH_ENV_DIR for the tests must never see the demo take that environment down or delete it.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_ENV_SCRIPT = fileURLToPath(new URL('../test-env.sh', import.meta.url));

/** A file the demo writes into its directory: only a directory holding it is ever deleted. */
export const MARKER_FILE = '.tidewatch-demo';

/** The shared test environment's default directory (scripts/test-env.sh): never the demo's. */
const TEST_ENV_DEFAULT_DIR = '/tmp/tidewatch-env';

export interface DemoConfig {
  /** the demo's env dir: private engine, registries, Tidewatch's pid file; removed on stop */
  dir: string;
  /** host:port of the anonymous registry the demo images live in */
  registryPort: number;
  /** the Basic-auth registry scripts/test-env.sh always starts (the demo does not use it) */
  authRegistryPort: number;
  /** Tidewatch's HTTP API and dashboard, on 127.0.0.1 only */
  apiPort: number;
  /** the main API token and the events token (the dashboard's live feed), new on every start */
  token: string;
  eventsToken: string;
}

/**
 * A failure the demo explains in one line (no stack): a bad setting, a missing part, a port in use. The
 * demo is a developer's tool outside core/, plugins/ and server/, so it has no TW_ERR_ code (docs/errors.md).
 */
export class DemoError extends Error {
  override name = 'DemoError';
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new DemoError(`${name}=${JSON.stringify(raw)}: expected a port from 1 to 65535`);
  }
  return value;
}

export function demoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  const dir = resolve(env['TIDEWATCH_DEMO_DIR'] || '/tmp/tidewatch-demo');
  // The demo deletes its directory when it stops: refuse anything that might hold something else.
  const shared = [TEST_ENV_DEFAULT_DIR, env['TIDEWATCH_ENV_DIR'] ? resolve(env['TIDEWATCH_ENV_DIR']) : undefined];
  if (dir === '/' || dir.split('/').length < 3 || shared.includes(dir)) {
    throw new DemoError(`TIDEWATCH_DEMO_DIR=${dir}: the demo deletes this directory when it stops; give a directory of its own, e.g. /tmp/tidewatch-demo`);
  }
  // Unix socket paths must stay under 108 bytes (scripts/test-env.sh checks it too).
  if (`${dir}/containerd.sock.ttrpc`.length >= 100) {
    throw new DemoError(`TIDEWATCH_DEMO_DIR=${dir}: too long for the engine's unix sockets; use a short path`);
  }
  const registryPort = port(env, 'TIDEWATCH_DEMO_REGISTRY_PORT', 5401);
  const authRegistryPort = port(env, 'TIDEWATCH_DEMO_AUTH_REGISTRY_PORT', registryPort + 1);
  const apiPort = port(env, 'TIDEWATCH_DEMO_PORT', 8080);
  if (new Set([registryPort, authRegistryPort, apiPort]).size !== 3) {
    throw new DemoError(`the registry ports (${registryPort}, ${authRegistryPort}) and the API port (${apiPort}) must differ`);
  }
  return {
    dir,
    registryPort,
    authRegistryPort,
    apiPort,
    token: randomBytes(16).toString('hex'),
    eventsToken: randomBytes(16).toString('hex'),
  };
}

export const dockerSocket = (config: DemoConfig): string => `${config.dir}/docker.sock`;
export const dockerHost = (config: DemoConfig): string => `unix://${dockerSocket(config)}`;
export const registry = (config: DemoConfig): string => `127.0.0.1:${config.registryPort}`;
export const apiUrl = (config: DemoConfig): string => `http://127.0.0.1:${config.apiPort}`;
