// The demo's sandbox: the test environment's private engine and registries (scripts/test-env.sh), started
// in the demo's own directory and on its own ports, and taken down completely: containers, Tidewatch,
// every process, the directory itself (docs/demo.md).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { DemoError, MARKER_FILE, TEST_ENV_SCRIPT, dockerSocket, type DemoConfig } from './config.js';
import { commandLine, isRunning, processesUnder, stopProcess } from './processes.js';

/** Tidewatch's pid, so that the next start can stop one a killed demo left behind. */
export const tidewatchPidFile = (config: DemoConfig): string => join(config.dir, 'tidewatch.pid');

/**
 * `bash scripts/test-env.sh up|down` with the demo's directory and ports. In its own process group, so a
 * Ctrl-C meant for the demo does not cut it off halfway: the demo finishes the step, then cleans up.
 */
export function testEnv(config: DemoConfig, command: 'up' | 'down'): Promise<void> {
  const child = spawn('bash', [TEST_ENV_SCRIPT, command], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      TIDEWATCH_ENV_DIR: config.dir,
      TIDEWATCH_REGISTRY_PORT: String(config.registryPort),
      TIDEWATCH_AUTH_REGISTRY_PORT: String(config.authRegistryPort),
      // The engine's packages only: no browser or Git for a demo (scripts/test-env.sh).
      TIDEWATCH_ENV_PACKAGES: 'engine',
    },
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new DemoError(`scripts/test-env.sh ${command} failed (${signal ?? `exit code ${code}`}); see its messages above`)),
    );
  });
}

export function engine(config: DemoConfig): Docker {
  return new Docker({ socketPath: dockerSocket(config) });
}

async function engineAnswers(config: DemoConfig): Promise<boolean> {
  if (!existsSync(dockerSocket(config))) return false;
  return engine(config).ping().then(
    () => true,
    () => false,
  );
}

/** Creates the directory with the marker that allows teardown() to delete it later, and this demo's pid. */
export function claimDirectory(config: DemoConfig): void {
  mkdirSync(config.dir, { recursive: true });
  writeFileSync(join(config.dir, MARKER_FILE), 'made by the Tidewatch demo (scripts/demo); removed when the demo stops\n');
  writeFileSync(join(config.dir, 'demo.pid'), `${process.pid}\n`);
}

/**
 * A demo still running in the directory (not one that was killed) must not be taken down from under it:
 * the start-up's cleanup is for what a dead demo left.
 */
export function refuseIfRunning(config: DemoConfig): void {
  const file = join(config.dir, 'demo.pid');
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isRunning(pid)) return;
  if (commandLine(pid)?.includes('scripts/demo/main.ts')) {
    throw new DemoError(`a demo is already running (pid ${pid}) in ${config.dir}: stop it first (Ctrl-C there, or kill ${pid}), or set TIDEWATCH_DEMO_DIR and the ports for a second one`);
  }
}

/** Mount points under the directory (dockerd's data root, overlay layers); deleting through them is unsafe. */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => (line.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter((mountPoint) => mountPoint.startsWith(`${dir}/`));
}

async function removeAllContainers(config: DemoConfig): Promise<number> {
  const docker = engine(config);
  // The engine is the demo's own: every container on it is the demo's.
  const containers = await docker.listContainers({ all: true });
  await Promise.all(
    containers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch((err: { statusCode?: number }) => {
          if (err.statusCode !== 404 && err.statusCode !== 409) throw err;
        }),
    ),
  );
  return containers.length;
}

/** Stops the Tidewatch whose pid the file holds, if it is still the demo's (its --host names the directory). */
async function stopTidewatch(config: DemoConfig, log: (line: string) => void): Promise<void> {
  const file = tidewatchPidFile(config);
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && processesUnder(config.dir).some((p) => p.pid === pid)) {
    log(`stopping Tidewatch (pid ${pid})`);
    await stopProcess(pid);
  }
  rmSync(file, { force: true });
}

/**
 * Takes everything down and deletes the directory: Tidewatch, the containers, the engine and the
 * registries, any process still naming the directory (a shim), then the directory. Safe to call on a
 * directory a killed demo left in any state; it refuses a directory the demo did not make.
 */
export async function teardown(config: DemoConfig, log: (line: string) => void): Promise<void> {
  if (!existsSync(config.dir)) return;
  if (!existsSync(join(config.dir, MARKER_FILE))) {
    if (readdirSync(config.dir).length === 0) {
      rmSync(config.dir, { recursive: true, force: true });
      return;
    }
    throw new DemoError(`${config.dir} exists and was not made by the demo (no ${MARKER_FILE}): remove it or set TIDEWATCH_DEMO_DIR`);
  }
  await stopTidewatch(config, log);
  // An engine that died with its containers still running: bring it back on the same data, so that the
  // containers go through the engine rather than being left to their shims.
  if (!(await engineAnswers(config)) && existsSync(join(config.dir, 'data', 'containers'))) {
    const left = readdirSync(join(config.dir, 'data', 'containers')).length;
    if (left > 0) await testEnv(config, 'up');
  }
  if (await engineAnswers(config)) {
    const removed = await removeAllContainers(config);
    if (removed > 0) log(`removed ${removed} demo container${removed === 1 ? '' : 's'}`);
  }
  await testEnv(config, 'down');
  for (const stray of processesUnder(config.dir)) {
    log(`stopping a leftover process ${stray.pid}: ${stray.command.slice(0, 120)}`);
    await stopProcess(stray.pid, 5_000);
  }
  const mounts = mountsUnder(config.dir);
  if (mounts.length > 0) {
    throw new DemoError(`still mounted under ${config.dir}: ${mounts.join(', ')}; not deleting it (umount them, then run the demo again)`);
  }
  rmSync(config.dir, { recursive: true, force: true });
}
