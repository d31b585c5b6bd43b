// `npm run demo` (docs/demo.md) as a user meets it: it comes up even where a killed demo was left behind,
// the commands it prints work (a check reports exactly the containers given newer images, an update
// replaces the ones it may), and SIGTERM leaves no process, container or directory behind.
// test-lane: environment (the demo starts its own private engine and registries, as root)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import t from 'tap';
import { REPO_ROOT } from '../helpers/service.js';
import { freePort } from '../helpers/ports.js';

// Its own directory and ports: the shared test environment (5101/5102) and the test files running beside
// this one must never meet the demo, and the directory is fixed so that a run killed halfway is cleaned up
// by the next one (the demo's own idempotence).
const DIR = '/tmp/tidewatch-demo-test';
const REGISTRY_PORT = 5411;
const AUTH_REGISTRY_PORT = 5412;
const inCI = process.env['CI'] === 'true';

interface Banner {
  dashboard: string;
  token: string;
  /** the three commands under "Try:" */
  commands: string[];
}

interface RunningDemo {
  child: ChildProcess;
  output(): string;
  banner: Promise<Banner>;
  exited: Promise<number | null>;
}


/**
 * The command package.json's "demo" script runs, started directly so that the test signals the demo itself:
 * scripts/run-node.sh picks the Node (docs/node.md) and execs it, so the child is the demo's own process.
 */
function demoCommand(): [string, string[]] {
  const script = (JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts['demo'];
  const match = /^TS_NODE_TRANSPILE_ONLY=1 bash scripts\/run-node\.sh (.+)$/.exec(script ?? '');
  if (!match) throw new Error(`package.json scripts.demo is not "TS_NODE_TRANSPILE_ONLY=1 bash scripts/run-node.sh …": ${script}`);
  return ['bash', ['scripts/run-node.sh', ...match[1]!.split(' ')]];
}

function startDemo(apiPort: number): RunningDemo {
  const [program, args] = demoCommand();
  const child = spawn(program, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      TS_NODE_TRANSPILE_ONLY: '1',
      // tap runs this file with Node's own type transform and says so to its loader in this variable; a
      // newcomer's shell has no such variable, and the demo's loader compiles TypeScript itself.
      TAP_TYPE_STRIP_ONLY: '0',
      TIDEWATCH_DEMO_DIR: DIR,
      TIDEWATCH_DEMO_REGISTRY_PORT: String(REGISTRY_PORT),
      TIDEWATCH_DEMO_AUTH_REGISTRY_PORT: String(AUTH_REGISTRY_PORT),
      TIDEWATCH_DEMO_PORT: String(apiPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let all = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const banner = new Promise<Banner>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 120 s:\n${all}`)), 120_000);
    child.stderr!.on('data', (d: Buffer) => (all += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      all += d.toString();
      const dashboard = /^ {2}Dashboard: +(\S+)$/m.exec(stdout)?.[1];
      const token = /^ {2}API token: +(\S+)$/m.exec(stdout)?.[1];
      const tryBlock = /^Try:\n((?: {2}\S.*\n){3})/m.exec(stdout)?.[1];
      if (dashboard && token && tryBlock) {
        clearTimeout(timer);
        resolve({ dashboard, token, commands: tryBlock.trim().split('\n').map((line) => line.trim()) });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}) before printing its banner:\n${all}`));
    });
  });
  banner.catch(() => {});
  return { child, output: () => all, banner, exited };
}

/** Runs one printed command through the shell, the way the user pastes it. */
function run(command: string): string {
  const result = spawnSync('sh', ['-c', command], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${command}: exit ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const pidFiles = (): string[] =>
  ['tidewatch.pid', 'dockerd.pid', 'containerd.pid', `registry-${REGISTRY_PORT}.pid`, `registry-${AUTH_REGISTRY_PORT}.pid`];

function readPids(): Map<string, number> {
  const pids = new Map<string, number>();
  for (const file of pidFiles()) {
    const path = `${DIR}/${file}`;
    if (existsSync(path)) pids.set(file, Number(readFileSync(path, 'utf8').trim()));
  }
  return pids;
}

/** A process still running whose command line is still the one it had (not a recycled pid), or any naming DIR. */
function aliveUnder(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let command = '';
    let state = '';
    try {
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
    } catch {
      continue;
    }
    if (command.includes(`${DIR}/`) && state !== 'Z') found.push(`${entry}: ${command}`);
  }
  return found;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

interface CheckRecord {
  name: string;
  update_available: boolean;
  current_image_version?: string;
  error?: string;
}

t.test('npm run demo: comes up over a killed one, its commands work, SIGTERM leaves nothing behind', async (t) => {
  if (process.getuid?.() !== 0) {
    if (inCI) throw new Error('CI=true: the demo test needs root (a private Docker Engine), it must not be skipped');
    t.plan(0, 'the demo needs root');
    return;
  }
  const started = Date.now();
  const apiPort = await freePort();
  const demos: RunningDemo[] = [];
  t.teardown(async () => {
    for (const demo of demos) {
      if (demo.child.exitCode === null && demo.child.signalCode === null) {
        demo.child.kill('SIGTERM');
        await demo.exited;
      }
    }
  });

  // A demo killed with SIGKILL leaves its engine, registries, containers and Tidewatch running.
  const killed = startDemo(apiPort);
  demos.push(killed);
  await killed.banner;
  const leftover = readPids();
  t.ok(leftover.get('tidewatch.pid') && leftover.get('dockerd.pid'), 'the first demo wrote its pid files');
  killed.child.kill('SIGKILL');
  await killed.exited;
  t.ok(running(leftover.get('tidewatch.pid')!), 'its Tidewatch survived the SIGKILL (own process group)');

  const demo = startDemo(apiPort);
  demos.push(demo);
  const banner = await demo.banner;
  for (const [file, pid] of leftover) {
    if (file === 'tidewatch.pid') t.notOk(running(pid), 'the killed demo’s Tidewatch was stopped');
  }
  t.match(banner.dashboard, new RegExp(`^http://127\\.0\\.0\\.1:${apiPort}/ui/$`), 'the dashboard on loopback, on the port asked for');
  t.match(banner.token, /^[0-9a-f]{32}$/, 'a random token');
  const dashboard = await fetch(banner.dashboard);
  t.equal(dashboard.status, 200, 'the dashboard page is served');
  t.match(await dashboard.text(), /<html/i);
  const refused = await fetch(banner.dashboard.replace('/ui/', '/v1/check'), { method: 'POST' });
  t.equal(refused.status, 401, 'the API wants the token');

  // A second demo in the same directory while this one runs: refused, and this one is left alone.
  const intruder = startDemo(await freePort());
  t.equal(await intruder.exited, 1, 'a demo started beside a running one exits 1');
  t.match(intruder.output(), /a demo is already running \(pid \d+\)/, 'and says why');

  // The first look (docs/demo.md#the-first-look): checked at start, so the lists already say what the banner does.
  t.match(demo.output(), /^Checked at start: 3 containers with an update waiting\.$/m, 'the banner says what the check at start found');
  const signedIn = /^ {2}Signed in: +(\S+)$/m.exec(demo.output())?.[1] ?? '';
  t.equal(signedIn, `${banner.dashboard}#token=${banner.token}&events-token=${/^ {2}Events token: +(\S+)/m.exec(demo.output())?.[1]}`, 'a link that signs the dashboard in, tokens in its fragment');
  const api = (path: string) => fetch(banner.dashboard.replace('/ui/', path), { headers: { authorization: `Bearer ${banner.token}` } }).then((r) => r.json());
  const listed = (await api('/v1/containers/details')) as { containers: Record<string, unknown>[] };
  const seen = new Map(listed.containers.map((c) => [c.name as string, c]));
  t.same(listed.containers.filter((c) => c.update_available).map((c) => c.name).sort(), ['demo-api', 'demo-web', 'demo-worker'], 'the dashboard opens on the pending updates');
  t.match(seen.get('demo-web'), { current_image_version: '1.0.0', latest_image_version: '1.1.0', changelog: 'https://tidewatch.example/demo/web/releases/1.1.0' }, 'a latest-tagged container: its candidate\'s version and release-notes link');
  t.match(seen.get('demo-api'), { tag_policy: 'minor', current_tag: '2.3.0', latest_tag: '2.4.0', latest_image_version: '2.4.0' }, 'a tag-policy container');

  const [checkCommand, updateCommand, psCommand] = banner.commands as [string, string, string];
  t.match(checkCommand, /^curl .*-X POST .*\/v1\/check/, 'first command: a check');
  const check = JSON.parse(run(checkCommand)) as { containers: CheckRecord[] };
  const byName = new Map(check.containers.map((c) => [c.name, c]));
  t.same([...byName.keys()].sort(), ['demo-api', 'demo-db', 'demo-web', 'demo-worker'], 'every watched container is checked; the opted-out one is not');
  t.same(check.containers.filter((c) => c.error !== undefined), [], 'no check failed');
  t.same(
    check.containers.filter((c) => c.update_available).map((c) => c.name).sort(),
    ['demo-api', 'demo-web', 'demo-worker'],
    'pending updates for exactly the watched containers that got newer images',
  );
  t.equal(byName.get('demo-web')?.current_image_version, '1.0.0');

  t.match(updateCommand, /^curl .*-X POST .*\/v1\/update/, 'second command: an update');
  const update = JSON.parse(run(updateCommand)) as { summary: Record<string, number> };
  t.match(update.summary, { scanned: 4, updated: 2, failed: 0 }, 'web and api replaced; the monitor-only worker not');

  t.match(psCommand, new RegExp(`^DOCKER_HOST=unix://${DIR}/docker\\.sock docker ps`), 'third command: docker ps on the demo engine');
  const ps = run(`${psCommand.replace(/\s+#.*$/, '')} --format '{{.Names}} {{.Image}}'`);
  t.same(ps.trim().split('\n').map((l) => l.split(' ')[0]).sort(), ['demo-api', 'demo-db', 'demo-legacy', 'demo-web', 'demo-worker'], 'all five containers run');
  const after = JSON.parse(run(checkCommand)) as { containers: CheckRecord[] };
  t.same(
    after.containers.filter((c) => c.update_available).map((c) => c.name),
    ['demo-worker'],
    'after the update only the monitor-only container is still behind',
  );
  t.equal(after.containers.find((c) => c.name === 'demo-web')?.current_image_version, '1.1.0', 'demo-web runs the newer image');

  // What must be gone after SIGTERM: every pid the demo wrote, and the containers' own processes.
  const pids = readPids();
  t.equal(pids.size, pidFiles().length, 'Tidewatch, dockerd, containerd and both registries have pid files');
  const inspect = run(`DOCKER_HOST=unix://${DIR}/docker.sock docker inspect --format '{{.State.Pid}}' $(DOCKER_HOST=unix://${DIR}/docker.sock docker ps -q)`);
  const containerPids = inspect.trim().split('\n').map(Number);
  t.equal(containerPids.length, 5);
  t.ok(containerPids.every(running), 'the containers’ processes run');

  demo.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([demo.exited, new Promise<string>((r) => (timer = setTimeout(() => r('timeout'), 60_000)))]);
  clearTimeout(timer);
  t.equal(code, 0, `the demo exits 0 after SIGTERM\n${demo.output().slice(-2000)}`);
  for (const [file, pid] of pids) t.notOk(running(pid), `${file.replace('.pid', '')} (pid ${pid}) is gone`);
  t.notOk(containerPids.some(running), 'no container process is left');
  t.same(aliveUnder(), [], `no process names ${DIR} (shims, engine, registries, Tidewatch)`);
  t.notOk(existsSync(DIR), `${DIR} is removed`);
  t.notOk(readFileSync('/proc/mounts', 'utf8').includes(`${DIR}/`), 'nothing is left mounted under it');
  t.comment(`demo test took ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
