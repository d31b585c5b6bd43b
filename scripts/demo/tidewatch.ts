// Tidewatch itself, as a user starts it from a checkout (node bin/tidewatch.js, over dist/), pointed at the
// demo's engine with the HTTP API and the dashboard on loopback (docs/demo.md).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DemoError, REPO_ROOT, apiUrl, dockerHost, type DemoConfig } from './config.js';
import { tidewatchPidFile } from './environment.js';

const BUILT_ENTRY = join(REPO_ROOT, 'dist', 'server', 'main.js');
/** What `npm run build` compiles and copies into dist/ (tsconfig.build.json, scripts/copy-assets.mjs). */
const BUILD_INPUTS = ['core', 'plugins', 'server', 'tsconfig.build.json', 'package.json'];

function newestChange(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, name)));
  return newest;
}

/** dist/ missing, or older than a source it is built from: `npm run build` (as `npm ci` does). */
export function buildIfStale(log: (line: string) => void): void {
  const builtAt = existsSync(BUILT_ENTRY) ? statSync(BUILT_ENTRY).mtimeMs : 0;
  const changedAt = Math.max(...BUILD_INPUTS.map((p) => newestChange(join(REPO_ROOT, p))));
  if (builtAt >= changedAt) return;
  log(builtAt === 0 ? 'dist/ is missing: npm run build' : 'dist/ is older than the sources: npm run build');
  const result = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new DemoError(`npm run build failed (${result.signal ?? `exit code ${result.status}`})`);
}

/** Refuses early, with a clear message, a port something else already listens on. */
export function ensurePortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(new DemoError(`127.0.0.1:${port} is in use (${err.code}): set TIDEWATCH_DEMO_PORT to a free port`)),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** The user's TIDEWATCH_*, WATCHTOWER_* and DOCKER_* variables stay out: the demo's flags say everything. */
function cleanEnvironment(config: DemoConfig): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(TIDEWATCH|WATCHTOWER|DOCKER)_/.test(key)) env[key] = value;
  }
  // Secrets through the environment, not the command line, where any local user could read them.
  env['TIDEWATCH_HTTP_API_TOKEN'] = config.token;
  env['TIDEWATCH_HTTP_API_EVENTS_TOKEN'] = config.eventsToken;
  return env;
}

export interface StartedTidewatch {
  child: ChildProcess;
  /** resolves with a description of how it exited */
  exited: Promise<string>;
}

/**
 * Starts Tidewatch in its own process group (a Ctrl-C reaches the demo only, which then stops Tidewatch
 * with one SIGTERM: a second signal would make it exit at once) and waits until /readyz answers 200.
 */
export async function startTidewatch(config: DemoConfig): Promise<StartedTidewatch> {
  await ensurePortFree(config.apiPort);
  const child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'bin', 'tidewatch.js'),
      '--host', dockerHost(config),
      '--http-api-endpoints', 'all',
      '--http-api-host', '127.0.0.1',
      '--http-api-port', String(config.apiPort),
      // Quick replacements for a demo: its containers stop in a second and have nothing to warm up.
      '--update-grace-period', '2s',
      '--stop-timeout', '5s',
      '--cleanup',
      // Release-notes locations for the first look (docs/demo.md); the demo's images name no GitHub source.
      '--release-notes',
    ],
    { cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'inherit', 'inherit'], env: cleanEnvironment(config) },
  );
  const exited = new Promise<string>((resolve) => {
    child.on('error', (err) => resolve(`could not start: ${err.message}`));
    child.on('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });
  if (child.pid !== undefined) writeFileSync(tidewatchPidFile(config), `${child.pid}\n`);

  let gone: string | undefined;
  void exited.then((how) => (gone = how));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (gone !== undefined) throw new DemoError(`Tidewatch stopped before it was ready (${gone}); see its log above`);
    const ready = await fetch(`${apiUrl(config)}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) return { child, exited };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new DemoError('Tidewatch did not answer /readyz within 60 s; see its log above');
}

/**
 * The first check, made at start so the dashboard opens on what the banner says (docs/demo.md#the-first-look);
 * returns how many containers have an update waiting.
 */
export async function checkAtStart(config: DemoConfig): Promise<number> {
  const res = await fetch(`${apiUrl(config)}/v1/check`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.token}` },
    signal: AbortSignal.timeout(120_000),
  });
  if (res.status !== 200) throw new DemoError(`the first check answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { containers: { update_available: boolean }[] };
  return body.containers.filter((c) => c.update_available).length;
}
