// Extra private Docker engines for a benchmark only (not a test helper): each is the machine's Debian dockerd
// with a containerd of its own, started like the test environment's engines (scripts/test-env/engine.sh:
// launch_dockerd and containerd_up): its data root, exec root, pidfile and unix socket in a directory of its own,
// `--bridge=none --iptables=false` and no other network setting touched, the storage driver the environment
// proved (env.json's storageDriver). A bench that needs more hosts than the environment has starts them here
// and stops and removes them at the end, also on an error, SIGINT or SIGTERM (stopAll).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { sleep } from './cli.js';

export interface BenchEngine {
  readonly name: string;
  readonly dir: string;
  readonly socket: string;
  readonly engine: Docker;
  readonly processes: ChildProcess[];
}

const run = promisify(execFile);
const started: BenchEngine[] = [];
const cleanups: (() => Promise<void>)[] = [];

/** Registers what the bench must undo on SIGINT/SIGTERM before its engines stop (its containers, its service). */
export function atStop(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

/** Runs each registered cleanup once (the bench's `finally` and a signal may both ask), errors logged. */
export async function runCleanups(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c().catch((err: unknown) => console.log(`cleanup: ${String(err)}`));
}

function launch(command: string, args: string[], log: string): ChildProcess {
  const fd = openSync(log, 'a');
  // Its own process group: a Ctrl-C on the terminal reaches the bench only, which stops the engines in order.
  const child = spawn(command, args, { stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  return child;
}

async function until(what: string, ok: () => Promise<boolean>, child: ChildProcess, log: string, seconds = 60): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await ok().catch(() => false)) return;
    if (child.exitCode !== null || child.signalCode !== null) break;
    await sleep(100);
  }
  const tail = (await readFile(log, 'utf8').catch(() => '')).split('\n').slice(-20).join('\n');
  throw new Error(`${what} did not start (last lines of ${log}):\n${tail}`);
}

/** Starts one engine named `name` under `root` (a directory the caller owns) with storage driver `driver`. */
export async function startEngine(root: string, name: string, driver: string): Promise<BenchEngine> {
  const dir = join(root, name);
  await mkdir(join(dir, 'containerd', 'root'), { recursive: true });
  await mkdir(join(dir, 'containerd', 'state'), { recursive: true });
  const containerdSock = join(dir, 'containerd.sock');
  await writeFile(
    join(dir, 'containerd', 'config.toml'),
    [
      'version = 2',
      `root = "${dir}/containerd/root"`,
      `state = "${dir}/containerd/state"`,
      'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
      '[grpc]',
      `  address = "${containerdSock}"`,
      '[ttrpc]',
      `  address = "${containerdSock}.ttrpc"`,
      '[debug]',
      '  address = ""',
      '  level = "warn"',
      '[metrics]',
      '  address = ""',
      '',
    ].join('\n'),
  );
  const log = join(dir, 'engine.log');
  const socket = join(dir, 'docker.sock');
  const engine = new Docker({ socketPath: socket });
  const entry: BenchEngine = { name, dir, socket, engine, processes: [] };
  started.push(entry);
  const containerd = launch('containerd', ['--config', join(dir, 'containerd', 'config.toml')], log);
  entry.processes.push(containerd);
  await until(`containerd of ${name}`, async () => (await stat(containerdSock)).isSocket(), containerd, log, 20);
  // Our own daemon.json, so /etc/docker/daemon.json (if any) never leaks in.
  await writeFile(join(dir, 'daemon.json'), '{}\n');
  const dockerd = launch(
    'dockerd',
    [
      `--config-file=${join(dir, 'daemon.json')}`,
      '--bridge=none', '--iptables=false', '--ip6tables=false', '--ip-forward=false', '--ip-masq=false',
      '--userland-proxy=false',
      `--data-root=${join(dir, 'data')}`, `--exec-root=${join(dir, 'exec')}`, `--pidfile=${join(dir, 'dockerd.pid')}`,
      `--containerd=${containerdSock}`, `--storage-driver=${driver}`, '--shutdown-timeout=5',
      '-H', `unix://${socket}`,
    ],
    log,
  );
  // dockerd first so that it stops before its containerd.
  entry.processes.unshift(dockerd);
  await until(`dockerd ${name}`, async () => (await engine.ping(), true), dockerd, log);
  return entry;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = sleep(30_000).then(() => 'timeout');
  if ((await Promise.race([exited.then(() => 'exited'), timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Stops every engine started here (dockerd, then its containerd), unmounts what they left and removes `root`. */
export async function stopAll(root: string): Promise<void> {
  const engines = started.splice(0);
  await Promise.all(engines.map(async (e) => {
    for (const p of e.processes) await stopProcess(p);
  }));
  // A clean shutdown unmounts its layers; a crash does not. Only mounts under `root`, innermost first.
  const mounts = (await readFile('/proc/mounts', 'utf8')).split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(`${root}/`));
  for (const m of mounts.sort().reverse()) await run('umount', [m]).catch(() => run('umount', ['-l', m]).catch(() => undefined));
  await rm(root, { recursive: true, force: true });
}

/** On SIGINT/SIGTERM: the registered cleanups, then stopAll(root), then exit (130/143). */
export function stopOnSignal(root: string): void {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      console.log(`${signal}: stopping the bench engines`);
      void runCleanups().then(() => stopAll(root)).finally(() => process.exit(code));
    });
  }
}
