// `--help` and a configuration error load no plugin's runtime dependency (docs/performance.md#footprint):
// the built binary's main runs in a child process that then lists the packages it loaded.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { docker, requireEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../helpers/images.js';
import { REPO_ROOT } from '../helpers/service.js';

const run = promisify(execFile);
const HEAVY = ['dockerode', 'docker-modem', 'fastify', '@fastify/', 'prom-client', '@octokit/', 'undici', 'mqtt', 'nodemailer'];

async function packagesLoadedBy(argv: string[]): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    import { main } from './dist/server/main.js';
    const sink = { write: () => true };
    await main({ argv: ${JSON.stringify(argv)}, env: {}, cwd: process.cwd(), stdout: sink, stderr: sink });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(loaded));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
  const files = JSON.parse(stdout.trim().split('\n').at(-1) as string) as string[];
  return [...new Set(files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter((p): p is string => p !== undefined))];
}

t.test('--help and a bad option import no plugin runtime dependency', async (t) => {
  for (const argv of [['--help'], ['--interval', 'soon']]) {
    const loaded = await packagesLoadedBy(argv);
    t.ok(loaded.length > 0, `${argv.join(' ')}: something was loaded (the check sees CommonJS packages)`);
    const heavy = loaded.filter((p) => HEAVY.some((h) => p === h || p.startsWith(h)));
    t.same(heavy, [], `${argv.join(' ')} loaded none of ${HEAVY.join(', ')}`);
  }
});

t.test('the check can see what a plugin runtime loads', async (t) => {
  // Building the HTTP API's server loads fastify: the same listing shows it, so the test above can fail.
  const script = `
    import { createRequire } from 'node:module';
    await import('./dist/plugins/http-api/server.js');
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
  t.match(stdout, /node_modules\/fastify\//);
});

t.test('a running service loads no Engine library, and no undici for its registry requests', async (t) => {
  // The default plugins, started and idle (the schedule's first run is a day away): the registry
  // plugin is applied and sends a request through its transport, on Node's own http: no undici loads.
  const script = `
    import { createRequire } from 'node:module';
    import { main } from './dist/server/main.js';
    const sink = { write: () => true };
    const cache = () => Object.keys(createRequire(import.meta.url).cache);
    void main({ argv: ['--host', 'unix:///tmp/tidewatch-no-such-engine.sock', '--interval', '24h'], env: {}, cwd: process.cwd(), stdout: sink, stderr: sink });
    await new Promise((r) => setTimeout(r, 1500));
    const idle = cache().some((f) => f.includes('/node_modules/undici/'));
    // The Docker runtime speaks to the Engine on Node's own http (docs/performance.md#memory).
    const engineLibraries = cache().filter((f) => ['dockerode', 'docker-modem', 'ssh2'].some((p) => f.includes('/node_modules/' + p + '/'))).length;
    const { RegistryTransport } = await import('./dist/plugins/registry/transport.js');
    const transport = new RegistryTransport({ concurrency: 1, timeoutMs: 2000, tlsSkip: false });
    await transport.send({ registry: '127.0.0.1:9', url: new URL('http://127.0.0.1:9/v2/'), method: 'GET' }).catch(() => undefined);
    const after = cache().some((f) => f.includes('/node_modules/undici/'));
    console.log(JSON.stringify({ idle, after, engineLibraries }));
    process.exit(0);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
  t.same(JSON.parse(stdout.trim().split('\n').at(-1) as string), { idle: false, after: false, engineLibraries: 0 });
});

t.test('the default plugins, idle, load no package their configuration does not ask for', async (t) => {
  // A module hook sees every import and require (ESM imports of CommonJS packages too), for the whole
  // start-up and a first discovery (docs/performance.md#footprint). With signature verification off, no
  // webhook receiver, no MQTT, no config file and no HTTP API, none of these may load.
  // pino: its module loads a worker-thread transport the service never uses; the log lines are written
  // by server/logger.ts (docs/performance.md#memory).
  const unused = ['yaml', 'ajv', '@sigstore/', 'mqtt', 'fastify', '@fastify/', 'prom-client', 'nodemailer', '@octokit/', 'undici', 'semver', 'pino', 'thread-stream'];
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
    const { main } = await import('./dist/server/main.js');
    const sink = { write: () => true };
    void main({ argv: ['--host', 'unix:///tmp/tidewatch-no-such-engine.sock', '--interval', '24h'], env: {}, cwd: process.cwd(), stdout: sink, stderr: sink });
    // Until the first discovery asked the Engine (a loaded machine may take longer than a quiet one).
    for (let i = 0; i < 100 && !process.moduleLoadList.includes('NativeModule http'); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
    console.log(JSON.stringify({ urls, builtins }));
    process.exit(0);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
  const { urls, builtins } = JSON.parse(stdout.trim().split('\n').at(-1) as string) as { urls: string[]; builtins: string[] };
  const packages = [...new Set(urls.map((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1]).filter((p): p is string => p !== undefined))];
  t.ok(packages.includes('tapable'), `the hook saw the packages the service uses: ${packages.join(', ')}`);
  // croner loads with the first cron expression (--schedule, an update window): --interval needs none.
  t.notOk(packages.includes('croner'), 'no croner for --interval');
  t.ok(urls.some((u) => u.includes('/dist/plugins/docker/')), 'the Docker runtime was applied');
  t.same(packages.filter((p) => unused.some((u) => p === u || p.startsWith(u))), [], `none of ${unused.join(', ')}`);
  // Node's own bundled undici (fetch, WebSocket) loads when anything ES-imports node:http, through its lazy
  // WebSocket getter: about 13 MB. The plain-http Engine and registry transports need neither it nor TLS.
  t.ok(builtins.includes('NativeModule http'), 'the transports loaded node:http');
  t.same(builtins.filter((m) => /internal\/deps\/undici|^NativeModule (tls|https|http2)$/.test(m)), [], 'no bundled undici, tls, https or http2');
});

t.test('idle with a data directory and a name pattern: no node:crypto, node:readline or re2js', async (t) => {
  // docs/performance.md#memory: the lock's nonce and the runs' ids need no node:crypto, the JSON migration
  // reads audit.jsonl with node:readline only when there is one, and `<prefix>-.*` is matched without RE2.
  // The real engine, so the start-up discovery runs (and makes its run id) before the list is read.
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-lazy-load-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
    const { main } = await import('./dist/server/main.js');
    const lines = [];
    const sink = { write: (s) => { lines.push(String(s)); return true; } };
    void main({ argv: ['--host', ${JSON.stringify(env.dockerHost)}, '--interval', '24h', '--data-dir', ${JSON.stringify(dir)}, 'tw-lazy-load-none-.*'], env: {}, cwd: process.cwd(), stdout: sink, stderr: sink });
    for (let i = 0; i < 200 && !process.moduleLoadList.includes('NativeModule http'); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
    console.log(JSON.stringify({ urls, builtins, lines: lines.length }));
    process.exit(0);`;
  // Without the test runner's NODE_OPTIONS (it adds them to every child it sees): its preloads load node:crypto.
  const { stdout } = await run('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, '--input-type=module', '-e', script], { cwd: REPO_ROOT });
  const { urls, builtins } = JSON.parse(stdout.trim().split('\n').at(-1) as string) as { urls: string[]; builtins: string[] };
  t.ok(builtins.includes('NativeModule sqlite'), 'the database is open');
  t.ok(builtins.includes('NativeModule http'), 'the start-up discovery asked the Engine');
  t.same(builtins.filter((m) => /^NativeModule (crypto|readline)$/.test(m)), [], 'no node:crypto, no node:readline');
  t.notOk(urls.some((u) => u.includes('/node_modules/re2js/')), 'no re2js for a prefix pattern');
});

/** The packages (node_modules names) among loaded module URLs. */
function packagesOf(urls: string[]): string[] {
  return [...new Set(urls.map((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1]).filter((p): p is string => p !== undefined))];
}

/**
 * The built service's main in a child, its HTTP API on `endpoints` (with `extra`, where `PORT` is the API's port),
 * and the module URLs it loaded once /livez answered and 500 ms more; with `then`, the URLs again after a GET of
 * that path, and the answer's JSON.
 */
async function apiLoads(endpoints: string, extra: string[] = [], then?: string): Promise<{ up: boolean; idle: string[]; after: string[]; answer: unknown }> {
  const reserve = (await import('node:net')).createServer();
  const port = await new Promise<number>((resolve) => reserve.listen(0, '127.0.0.1', () => resolve((reserve.address() as { port: number }).port)));
  await new Promise((resolve) => reserve.close(resolve));
  const argv = ['--host', 'unix:///tmp/tidewatch-no-such-engine.sock', '--interval', '24h', '--http-api-endpoints', endpoints,
    '--http-api-token', 'lazy-load-main-token-0123456789', '--http-api-host', '127.0.0.1', '--http-api-port', String(port), ...extra.map((a) => a.replace('PORT', String(port)))];
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
    const { main } = await import('./dist/server/main.js');
    const sink = { write: () => true };
    void main({ argv: ${JSON.stringify(argv)}, env: {}, cwd: process.cwd(), stdout: sink, stderr: sink });
    let up = false;
    for (let i = 0; i < 300 && !up; i++) {
      up = await fetch('http://127.0.0.1:${port}/livez').then((r) => r.ok, () => false);
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    const idle = [...urls];
    const then = ${JSON.stringify(then ?? null)};
    const answer = then === null ? null : await fetch('http://127.0.0.1:${port}' + then).then((r) => r.json());
    console.log(JSON.stringify({ up, idle, after: urls, answer }));
    process.exit(0);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as { up: boolean; idle: string[]; after: string[]; answer: unknown };
}

t.test('single sign-on off: the HTTP API with tokens and the dashboard loads no OpenID Connect library', async (t) => {
  // docs/performance.md#footprint, issue 48: openid-client (and oauth4webapi, jose under it) load only with
  // --oidc-issuer; personal tokens need none of them. The control case sets the issuer (no provider needs to
  // run: discovery waits for the first sign-in) and must see openid-client load, so the first can fail.
  const loadedWith = async (extra: string[]): Promise<string[]> => {
    const { up, idle } = await apiLoads('dashboard,containers,tokens', extra);
    t.ok(up, `the API answered (${extra.length ? 'single sign-on on' : 'off'})`);
    t.ok(idle.some((u) => u.includes('/dist/plugins/people/')), 'the people plugin was applied');
    return packagesOf(idle);
  };
  const oidcLibraries = ['openid-client', 'oauth4webapi', 'jose'];
  const off = await loadedWith([]);
  t.ok(off.includes('fastify'), 'the HTTP API was started');
  t.same(off.filter((p) => oidcLibraries.includes(p)), [], `none of ${oidcLibraries.join(', ')} without --oidc-issuer`);
  const on = await loadedWith(['--oidc-issuer', 'http://127.0.0.1:9/', '--oidc-client-id', 'tidewatch', '--oidc-roles', 'admin=admins', '--public-url', 'http://127.0.0.1:PORT/']);
  t.ok(on.includes('openid-client'), 'with --oidc-issuer, openid-client loads (the check can see it)');
});

t.test('the swagger endpoint on and idle: no description generator, Swagger UI or yaml until /swagger/ is asked', async (t) => {
  // docs/performance.md#footprint: the server records the routes; @fastify/swagger, @fastify/swagger-ui and
  // yaml (about 3.5 MB) load at the first request under /swagger/. The same process then asks for the page's
  // description and must see them load, so the first half can fail.
  const { up, idle, after, answer } = await apiLoads('swagger,check', [], '/swagger/doc.json');
  const described = Object.keys((answer as { paths?: Record<string, unknown> }).paths ?? {});
  const swaggerParts = ['@fastify/swagger', '@fastify/swagger-ui', 'yaml'];
  t.ok(up, 'the API answered');
  t.ok(packagesOf(idle).includes('fastify'), 'the HTTP API was started');
  t.same(packagesOf(idle).filter((p) => swaggerParts.includes(p)), [], `idle: none of ${swaggerParts.join(', ')}`);
  t.same(packagesOf(after).filter((p) => swaggerParts.includes(p)).sort(), [...swaggerParts].sort(), 'the first request under /swagger/ loads them');
  t.ok(described.includes('/v1/check'), `the description lists the routes recorded at start: ${described.join(', ')}`);
});

/**
 * The built service's main in a child (without the test runner's NODE_OPTIONS, whose preloads load node:fs/promises),
 * the module URLs and Node built-ins it loaded once started and idle for a second; with `update`, the URLs again after
 * `POST /v1/update` on its API (`PORT` in `argv` is the API's port), with the run's summary.
 */
async function serviceLoads(argv: string[], update?: { token: string }): Promise<{ idle: string[]; builtins: string[]; after: string[]; summary: unknown }> {
  const reserve = (await import('node:net')).createServer();
  const port = await new Promise<number>((resolve) => reserve.listen(0, '127.0.0.1', () => resolve((reserve.address() as { port: number }).port)));
  await new Promise((resolve) => reserve.close(resolve));
  const args = argv.map((a) => a.replace('PORT', String(port)));
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
    const { main } = await import('./dist/server/main.js');
    let out = '';
    const sink = { write: (s) => { out += String(s); return true; } };
    void main({ argv: ${JSON.stringify(args)}, env: {}, cwd: process.cwd(), stdout: sink, stderr: sink });
    for (let i = 0; i < 300 && !/scheduled updates enabled|HTTP API listening/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = [...urls];
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
    const update = ${JSON.stringify(update ?? null)};
    const summary = update === null ? null : await fetch('http://127.0.0.1:${port}/v1/update', { method: 'POST', headers: { authorization: 'Bearer ' + update.token } }).then((r) => r.json()).then((b) => b.summary);
    console.log(JSON.stringify({ idle, builtins, after: urls, summary }));
    process.exit(0);`;
  const { stdout } = await run('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, '--input-type=module', '-e', script], { cwd: REPO_ROOT });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as { idle: string[]; builtins: string[]; after: string[]; summary: unknown };
}

/** The modules of `urls` under dist/ among `modules` (paths below dist/). */
function loadedOf(urls: string[], modules: readonly string[]): string[] {
  return modules.filter((m) => urls.some((u) => u.endsWith(`/dist/${m}`)));
}

t.test('idle with a data directory: the code loaded at first use is not loaded; the first update loads it', async (t) => {
  // docs/plugins.md#loading-code-at-first-use: the Docker runtime's replacement path, the registry client, and the
  // runtimes of plugins nothing turned on. The second service updates a real container through the API, and the
  // same modules must then be loaded, so the first half can fail.
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('lazy-first-use');
  const name = `${prefix}-app`;
  t.teardown(() => removeContainers(engine, prefix));
  const dirs = [await mkdtemp(join(tmpdir(), 'tw-lazy-first-')), await mkdtemp(join(tmpdir(), 'tw-lazy-first-'))];
  t.teardown(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  const first = await pushImage({ registry: env.registry, repo: 'lazy/first-use', marker: `${prefix}-v1` });
  await pullImage(engine, first.ref);
  await runContainer(engine, { name, image: first.ref });
  const second = await pushImage({ registry: env.registry, repo: 'lazy/first-use', marker: `${prefix}-v2` });

  const updatePath = ['plugins/docker/update-work.js', 'plugins/docker/replace/replace.js', 'plugins/docker/replace/prove.js', 'plugins/docker/compose/follow-up.js', 'plugins/docker/image/pull.js', 'plugins/docker/self/update.js', 'plugins/registry/start.js', 'plugins/registry/client.js'];
  const unused = ['plugins/docker/replace/repair.js', 'plugins/docker/engine/ssh/tunnel.js', 'plugins/webhooks/start.js', 'plugins/attestations/start.js', 'plugins/agents/start.js', 'plugins/agents/tunnel.js', 'plugins/people/start.js', 'plugins/swarm/update.js', 'plugins/rollouts/start.js'];
  const idle = await serviceLoads(['--host', env.dockerHost, '--interval', '24h', '--data-dir', dirs[0] as string, name]);
  t.ok(idle.builtins.includes('NativeModule sqlite'), 'the database is open');
  t.same(loadedOf(idle.idle, ['plugins/docker/start.js', 'plugins/registry/index.js', 'plugins/policies/start.js', 'plugins/rollouts/taps.js']).length, 4, 'the runtime, the registry source, the policies and the rollouts were applied');
  t.same(loadedOf(idle.idle, [...updatePath, ...unused]), [], 'idle: none of the code loaded at first use');
  // docs/performance.md#memory: node:fs/promises (readline's interface with it) stays out of the start-up path.
  t.same(idle.builtins.filter((m) => /^NativeModule (internal\/)?fs\/promises$|readline/.test(m)), [], 'no node:fs/promises, no readline');

  const token = 'lazy-first-use-token-0123456789';
  const api = ['--host', env.dockerHost, '--interval', '24h', '--data-dir', dirs[1] as string, '--http-api-endpoints', 'update', '--http-api-token', token, '--http-api-host', '127.0.0.1', '--http-api-port', 'PORT', name];
  const updated = await serviceLoads(api, { token });
  t.same(loadedOf(updated.idle, updatePath), [], 'with the API up, still none before the first update');
  t.match(updated.summary, { updated: 1, failed: 0 }, 'the update replaced the container');
  t.same(loadedOf(updated.after, updatePath), updatePath, 'the first update loaded the replacement path and the registry client');
  const info = await engine.getContainer(name).inspect();
  t.equal(info.Image, second.configDigest, 'the container runs the new image');
});
