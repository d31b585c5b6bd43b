// Podman's Docker-compatible API, started by scripts/test-env.sh (`podman system service` on
// $TIDEWATCH_ENV_DIR/podman/podman.sock with a private configuration). Tests that need it call
// requirePodman(t): it skips on a developer's machine without podman and FAILS in CI (CI=true).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { requireEnv, type TestEnv } from './env.js';

const run = promisify(execFile);

export interface PodmanEnv extends TestEnv {
  podmanSocket: string;
  podmanHost: string;
}

/** A dockerode client for Podman's compatible API. */
export function podman(env: PodmanEnv): Docker {
  return new Docker({ socketPath: env.podmanSocket });
}

/** The variables that point the podman CLI at the environment's private configuration and storage. */
export function podmanCliEnv(env: TestEnv): NodeJS.ProcessEnv {
  const dir = join(env.envDir, 'podman');
  return {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    CONTAINERS_CONF: join(dir, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf'),
    CONTAINERS_REGISTRIES_CONF: join(dir, 'registries.conf'),
  };
}

/** Runs the podman CLI on the environment's storage (the same containers the service sees); its stdout. */
export async function podmanCli(env: TestEnv, args: string[]): Promise<string> {
  const { stdout } = await run('podman', args, { env: podmanCliEnv(env), timeout: 60_000 });
  return stdout.trim();
}

/** The environment with Podman's socket answering, or undefined after marking the test skipped (locally). */
export async function requirePodman(t: { plan(n: number, comment?: string): void }): Promise<PodmanEnv | undefined> {
  const env = await requireEnv(t);
  if (!env) return undefined;
  let problem: string | undefined;
  if (!env.podmanSocket || !env.podmanHost) problem = 'env.json names no Podman socket (is podman installed?)';
  else {
    try {
      await new Docker({ socketPath: env.podmanSocket }).ping();
    } catch (err) {
      problem = `Podman at ${env.podmanSocket} does not answer (${(err as Error).message})`;
    }
  }
  if (!problem) return env as PodmanEnv;
  const msg = `no Podman: ${problem}. Start it with: bash scripts/test-env.sh up`;
  if (process.env['CI'] === 'true') throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`);
  t.plan(0, msg);
  return undefined;
}
