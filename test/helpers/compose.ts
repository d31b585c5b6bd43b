// Debian's `docker-compose` (v1) for the Compose tests (docs/compose.md): missing, it skips locally and
// FAILS in CI (CI=true), as every part of the test environment does.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

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
