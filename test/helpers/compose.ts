// The real docker-compose for the Compose tests (docs/compose.md): whether it is installed, and under
// CI=true a missing one is an error, never a skip.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

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
