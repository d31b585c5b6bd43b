// The real docker-compose for the Compose tests (docs/compose.md): whether it is installed, and under
// CI=true a missing one is an error, never a skip. Bookworm's is Compose 1.29; the copy-file test needs
// Compose v2's `configs: content:`, trixie's binary the test environment unpacks (scripts/test-env.sh).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestEnv } from './env.js';

const run = promisify(execFile);

/** True when `docker-compose` runs; otherwise plans the test away, or throws under CI=true. */
export async function composeAvailable(t: { plan(n: number, comment?: string): void }): Promise<boolean> {
  try {
    await run('docker-compose', ['version']);
    return true;
  } catch {
    if (process.env['CI'] === 'true') throw new Error('docker-compose is missing (CI=true: the Compose tests must not be skipped)');
    t.plan(0, 'docker-compose is not installed (bash scripts/test-env.sh up installs it)');
    return false;
  }
}

/** The path of Compose v2 (env.json's `compose2`); otherwise plans the test away, or throws under CI=true. */
export async function compose2Path(t: { plan(n: number, comment?: string): void }, env: TestEnv): Promise<string | undefined> {
  if (env.compose2) {
    try {
      await run(env.compose2, ['version']);
      return env.compose2;
    } catch {
      // reported below
    }
  }
  if (process.env['CI'] === 'true') throw new Error("Compose v2 is missing (CI=true: bash scripts/test-env.sh up unpacks trixie's docker-compose)");
  t.plan(0, "no Compose v2 (bash scripts/test-env.sh up unpacks trixie's docker-compose)");
  return undefined;
}
