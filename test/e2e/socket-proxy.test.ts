// Least privilege on the Docker socket (docs/security.md), through the built binary and a real filtering proxy:
// Debian's haproxy configured as the docker-socket-proxy image configures it (test/helpers/socket-proxy.ts),
// in front of the private engine. The proxy is built from the table of Engine calls in docs/security.md: with
// exactly the documented switches a check, an update (cleanup, lifecycle hooks and a container on two networks
// included) and a rollback pass, every call they make is in the table; with any one switch taken away, the
// refusal is named (call and switch), never a stack trace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ANSWERED_RECENTLY_MS } from '../../plugins/docker/engine/connect.js';
import { endpointTemplate, proxySwitches } from '../../plugins/docker/engine/socket-proxy.js';
import { requireSwarm, swarmDocker } from '../helpers/env.js';
import { pushImage, removeContainers, testPrefix, type PushedImage } from '../helpers/images.js';
import { createService, removeServices, serviceState, waitForTasks } from '../helpers/swarm.js';
import { apiVersionOf, appOnTwoNetworks } from '../helpers/networks.js';
import { QUICK_STOP_CMD, docker26Scenario, mainScenario, pushNext, runningOn, scenario, type RunningOn, type Scenario } from '../helpers/scenarios.js';
import { REPO_ROOT, call, runBinary, startService } from '../helpers/service.js';
import { haproxyInstalled, startSocketProxy, type ProxiedRequest, type SocketProxy } from '../helpers/socket-proxy.js';

interface DocumentedCall {
  readonly mode: string;
  readonly method: string;
  readonly template: string;
  readonly switches: readonly string[];
  /** A call the mode does without (its `when` says "optional"). */
  readonly optional: boolean;
}

/** The table "Engine endpoints per mode" of docs/security.md. */
function documentedCalls(): DocumentedCall[] {
  const text = readFileSync(join(REPO_ROOT, 'docs/security.md'), 'utf8');
  const section = text.slice(text.indexOf('### Engine endpoints per mode'));
  const rows = [...section.matchAll(/^\| (\w+) \| `([A-Z]+) (\S+)` \| ([A-Z_ +]+) \| ([^|]*) \|$/gm)];
  return rows.map((m) => ({
    mode: m[1] as string,
    method: m[2] as string,
    template: m[3] as string,
    switches: (m[4] as string).split('+').map((s) => s.trim()),
    optional: (m[5] as string).trim().startsWith('optional'),
  }));
}

const CALLS = documentedCalls();

/** The docker-socket-proxy switches the documented calls of `modes` need. */
function switchesFor(modes: readonly string[]): Set<string> {
  return new Set(CALLS.filter((c) => modes.includes(c.mode)).flatMap((c) => c.switches));
}

function documented(request: ProxiedRequest): DocumentedCall | undefined {
  const template = endpointTemplate(request.path);
  return CALLS.find((c) => c.method === request.method && c.template === template);
}

/** Every call the proxy saw is in the table under one of `modes`, and none was refused but GET /swarm outside Swarm. */
function checkTraffic(t: Test, proxy: SocketProxy, modes: readonly string[]): void {
  const seen = proxy.requests();
  t.ok(seen.length > 0, 'the run went through the proxy');
  const undocumented = seen.filter((r) => !documented(r)).map((r) => `${r.method} ${endpointTemplate(r.path)}`);
  t.same([...new Set(undocumented)], [], 'every Engine call is listed in docs/security.md');
  const outside = seen.filter((r) => documented(r) && !modes.includes((documented(r) as DocumentedCall).mode));
  t.same([...new Set(outside.map((r) => `${r.method} ${endpointTemplate(r.path)}`))], modes.includes('swarm') ? [] : ['GET /swarm'], 'no call of another mode but the Swarm probe');
  const refused = seen.filter((r) => r.status === 403 && !(r.method === 'GET' && endpointTemplate(r.path) === '/swarm'));
  t.same(refused, [], 'nothing else refused');
}

const STACK = /^\s+at .+[:(]\d+:\d+\)?$/m;

function noStackTrace(t: Test, output: string): void {
  t.notMatch(output, STACK, 'no stack trace');
  t.notMatch(output, /"stack":/, 'no stack in the JSON log');
  t.notMatch(output, /<html>|Forbidden/, "not the proxy's HTML page");
}

async function proxy(t: Test, socket: string, switches: Iterable<string>): Promise<SocketProxy> {
  const started = await startSocketProxy(socket, switches);
  t.teardown(() => started.stop());
  return started;
}

/** Runs once through `host` (an update run unless `extra` says otherwise); JSON log lines and the exit code. */
async function runOnce(s: Scenario, host: string, extra: string[] = []) {
  const result = await runBinary(
    ['--host', host, '--run-once', '--update-grace-period', '1s', '--stop-timeout', '5s', ...extra, `${s.prefix}-.*`],
    {},
    120_000,
  );
  const output = `${result.stdout}\n${result.stderr}`;
  const finished = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((entry) => entry['msg'] === 'run-once finished');
  return { code: result.code, output, finished };
}

/** The scenario's container: a pre-update hook (exec), a stop signal, on two networks (NETWORKS before API 1.44). */
function hookedOnTwoNetworks(t: Test, s: Scenario): Promise<RunningOn> {
  return appOnTwoNetworks(s, (fn) => t.teardown(fn), {
    // A stop-signal label: the old container is stopped with kill and wait, not stop (docs/security.md).
    labels: { 'com.centurylinklabs.watchtower.lifecycle.pre-update': 'true', 'com.centurylinklabs.watchtower.stop-signal': 'SIGTERM' },
    front: { aliases: ['web'] },
    back: { aliases: ['api'] },
  });
}

const UPDATE_MODES = ['check', 'update', 'cleanup', 'hooks'];
const UPDATE_FLAGS = ['--cleanup', '--enable-lifecycle-hooks'];

t.test('docs/security.md: the switches of each call are the ones a refusal names', async (t) => {
  t.ok(CALLS.length >= 20, 'the table was read');
  for (const mode of ['check', 'update', 'cleanup', 'hooks', 'swarm']) t.ok(CALLS.some((c) => c.mode === mode), `mode ${mode} listed`);
  for (const c of CALLS) {
    t.same(proxySwitches(c.method, c.template), c.switches, `${c.method} ${c.template}`);
    t.equal(endpointTemplate(c.template.replace('{id}', 'abc123').replace('{name}', 'registry:5000/a/b:1')), c.template);
  }
  t.notOk([...switchesFor(['check'])].includes('POST'), 'checking needs no write at all');
});

t.test('monitor-only and check-only work through a read-only proxy (POST=0)', async (t) => {
  if (!requireHaproxy(t)) return;
  const s = await scenario(t, 'e2e-proxy-ro');
  if (!s) return;
  const running = await runningOn(s, 'app');
  await pushNext(s, running);
  const readOnly = await proxy(t, s.env.dockerSocket, switchesFor(['check']));
  t.notOk(readOnly.switches.has('POST'));

  const run = await runOnce(s, readOnly.host, ['--monitor-only']);
  t.equal(run.code, 0, run.output);
  t.match(run.finished, { scanned: 1, updated: 0, failed: 0 });
  noStackTrace(t, run.output);
  t.equal((await s.engine.getContainer(running.name).inspect()).Id, running.container.id, 'the container was left as it was');
  checkTraffic(t, readOnly, ['check']);
  t.notOk(readOnly.requests().some((r) => r.method !== 'GET'), 'only GETs');

  // Check-only: the HTTP API's check and readiness through the same proxy.
  const token = 'e2e-socket-proxy-token-0123456789';
  const service = await startService(['--host', readOnly.host, '--http-api-endpoints', 'check,health', '--http-api-token', token, `${s.prefix}-.*`]);
  t.teardown(() => service.stop('SIGKILL'));
  const check = await call(`${service.url}/v1/check`, { method: 'POST', token });
  t.equal(check.status, 200);
  t.match((check.body as { containers: unknown[] }).containers, [{ name: running.name, update_available: true }], 'the stale container is found');
  t.equal((await call(`${service.url}/readyz`)).status, 200, 'ready');
  checkTraffic(t, readOnly, ['check']);
  t.notOk(readOnly.requests().some((r) => r.method !== 'GET'), 'still only GETs');
});

for (const [label, engineScenario] of [['Docker 20.10', mainScenario], ['Docker 26', docker26Scenario]] as const) {
t.test(`${label}: update, cleanup, hooks and rollback work through a proxy with exactly the documented switches`, async (t) => {
  if (!requireHaproxy(t)) return;
  const s = await engineScenario(t, `e2e-proxy-rw${label.replace(/\D/g, '')}`);
  if (!s) return;
  const running = await hookedOnTwoNetworks(t, s);
  const v2 = await pushNext(s, running);
  const exact = await proxy(t, s.socket, switchesFor(UPDATE_MODES));

  const run = await runOnce(s, exact.host, UPDATE_FLAGS);
  t.equal(run.code, 0, run.output);
  t.match(run.finished, { scanned: 1, updated: 1, failed: 0 });
  noStackTrace(t, run.output);
  const now = await s.engine.getContainer(running.name).inspect();
  t.equal(now.Image, (await s.engine.getImage(v2.ref).inspect()).Id, 'the new image runs');
  t.same(Object.keys(now.NetworkSettings.Networks).sort(), [`${s.prefix}-back`, `${s.prefix}-front`], 'on both networks');
  await t.rejects(s.engine.getImage(running.image.configDigest).inspect(), { message: /no such image/i }, 'the old image was cleaned up');
  checkTraffic(t, exact, UPDATE_MODES);
  const calls = new Set(exact.requests().map((r) => `${r.method} ${endpointTemplate(r.path)}`));
  // Before API 1.44 the second network is connected after the create; from 1.44 on it is in the create.
  const connects = (await apiVersionOf(s.engine)) < 1.44;
  t.equal(calls.has('POST /networks/{id}/connect'), connects, `POST /networks/{id}/connect ${connects ? 'made' : 'not needed'}`);
  for (const expected of ['POST /exec/{id}/start', 'DELETE /images/{name}', 'POST /images/create', 'POST /containers/{id}/kill', 'POST /containers/{id}/wait']) {
    t.ok(calls.has(expected), `the run made ${expected}`);
  }

  // A new image that exits at once: rolled back through the same proxy.
  const before = now.Id;
  await pushNext(s, running, { marker: `${running.repo} bad`, cmd: ['/bin/false'] });
  const failed = await runOnce(s, exact.host, UPDATE_FLAGS);
  t.match(failed.finished, { updated: 0, failed: 1 });
  noStackTrace(t, failed.output);
  const back = await s.engine.getContainer(running.name).inspect();
  t.equal(back.Id, before, 'the container is back');
  t.ok(back.State.Running, 'and running');
  checkTraffic(t, exact, UPDATE_MODES);
});
}

t.test('each documented switch taken away: the refusal names the call and the switch, never a stack trace', async (t) => {
  if (!requireHaproxy(t)) return;
  const s = await scenario(t, 'e2e-proxy-deny');
  if (!s) return;
  const running = await hookedOnTwoNetworks(t, s);
  const all = switchesFor(UPDATE_MODES);
  // PING is the HTTP API's readiness alone: a run-once never pings (its own subtest below).
  for (const missing of [...all].filter((name) => name !== 'PING').sort()) {
    await t.test(`without ${missing}`, async (t) => {
      await pushNext(s, running, { marker: `${running.repo} without ${missing}` });
      const partial = await proxy(t, s.env.dockerSocket, [...all].filter((name) => name !== missing));
      const run = await runOnce(s, partial.host, UPDATE_FLAGS);
      noStackTrace(t, run.output);
      const refused = partial.requests().filter((r) => r.status === 403 && endpointTemplate(r.path) !== '/swarm');
      t.ok(refused.length > 0, 'the proxy refused a call');
      for (const r of refused) {
        const doc = documented(r);
        t.ok(doc?.switches.includes(missing), `${r.method} ${endpointTemplate(r.path)} is documented as needing ${missing}`);
      }
      const first = refused[0] as ProxiedRequest;
      const needed = proxySwitches(first.method, endpointTemplate(first.path)).join(' and ');
      const message = `the Docker socket proxy refused ${first.method} ${endpointTemplate(first.path)} (403): allow ${needed}`;
      t.ok(run.output.includes(message), `the log says: ${message}`);
      if (documented(first)?.optional) {
        t.equal(run.code, 0, 'an optional call refused fails nothing');
        t.match(run.finished, { updated: 1, failed: 0 });
      } else {
        t.ok(run.code !== 0 || (run.finished?.['failed'] as number) > 0, 'the run (or the update) failed');
        t.notOk((run.finished?.['updated'] as number) > 0, 'nothing was updated');
        const now = await s.engine.getContainer(running.name).inspect();
        t.ok(now.State.Running, 'the container still runs');
      }
    });
  }

  await t.test('without PING', async (t) => {
    const partial = await proxy(t, s.env.dockerSocket, [...all].filter((name) => name !== 'PING'));
    const service = await startService(['--host', partial.host, '--http-api-endpoints', 'health', `${s.prefix}-.*`]);
    t.teardown(() => service.stop('SIGKILL'));
    // Readiness takes an engine's answer of the last ANSWERED_RECENTLY_MS as its answer (docs/hosts.md#start-up):
    // right after the start-up's calls it needs no ping; once they are older it pings, and the proxy refuses.
    let res = await call(`${service.url}/readyz`);
    for (const until = Date.now() + ANSWERED_RECENTLY_MS + 10_000; res.status === 200 && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      res = await call(`${service.url}/readyz`);
    }
    t.equal(res.status, 503, 'not ready once the start-up\'s answers are older than the readiness window');
    t.match(JSON.stringify(res.body), 'the Docker socket proxy refused GET /_ping (403): allow PING');
    noStackTrace(t, service.stderr.join(''));
  });
});

t.test('Swarm services through the proxy: updated with the documented switches; SWARM, SERVICES or TASKS taken away is named', async (t) => {
  if (!requireHaproxy(t)) return;
  const env = await requireSwarm(t);
  if (!env) return;
  const engine = swarmDocker(env);
  const prefix = testPrefix('e2e-proxy-swarm');
  t.teardown(async () => {
    await removeServices(engine, prefix);
    await removeContainers(engine, prefix);
  });
  const repo = `${prefix}/app`;
  const pinned = (image: PushedImage) => `${image.ref}@${image.digest}`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  const enabled = { 'tidewatch.enable': 'true' };
  // Scaled to zero, a service never gets an update status: its update is followed by its tasks (GET /tasks).
  const ids = {
    web: await createService(engine, { name: `${prefix}-web`, image: pinned(v1), labels: enabled }),
    idle: await createService(engine, { name: `${prefix}-idle`, image: pinned(v1), mode: { replicas: 0 }, labels: enabled }),
  };
  await waitForTasks(engine, ids.web, pinned(v1), 1);
  const modes = ['check', 'swarm'];
  const all = switchesFor(modes);
  const run = (host: string) =>
    runBinary(['--host', host, '--run-once', '--swarm-poll-interval', '250ms', `${prefix}-.*`], {}, 120_000).then((r) => ({
      ...r,
      output: `${r.stdout}\n${r.stderr}`,
    }));

  for (const missing of ['SWARM', 'SERVICES', 'TASKS']) {
    await t.test(`without ${missing}`, async (t) => {
      const before = await serviceState(engine, ids.idle);
      await pushImage({ registry: env.registry, repo, marker: `${repo} without ${missing}`, cmd: QUICK_STOP_CMD });
      const partial = await startSocketProxy(env.swarmDockerSocket, [...all].filter((name) => name !== missing));
      t.teardown(() => partial.stop());
      const result = await run(partial.host);
      noStackTrace(t, result.output);
      const refused = partial.requests().filter((r) => r.status === 403);
      t.ok(refused.length > 0, 'the proxy refused a call');
      const first = refused[0] as ProxiedRequest;
      t.ok(documented(first)?.switches.includes(missing), `${first.method} ${endpointTemplate(first.path)} is documented as needing ${missing}`);
      const message = `the Docker socket proxy refused ${first.method} ${endpointTemplate(first.path)} (403): allow ${missing}`;
      t.ok(result.output.includes(message), `the log says: ${message}`);
      if (missing === 'TASKS') t.not(result.code, 0, 'the idle service update is reported failed');
      else t.equal((await serviceState(engine, ids.idle)).image, before.image, 'no service was updated');
    });
  }

  const v2 = await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD });
  const exact = await startSocketProxy(env.swarmDockerSocket, all);
  t.teardown(() => exact.stop());
  const result = await run(exact.host);
  t.equal(result.code, 0, result.output);
  noStackTrace(t, result.output);
  for (const id of [ids.web, ids.idle]) t.match((await serviceState(engine, id)).image, `@${v2.digest}`, 'the service runs the new digest');
  checkTraffic(t, exact, modes);
  const calls = new Set(exact.requests().map((r) => `${r.method} ${endpointTemplate(r.path)}`));
  for (const expected of ['GET /swarm', 'GET /services', 'POST /services/{id}/update', 'GET /tasks']) t.ok(calls.has(expected), `the run made ${expected}`);
});

function requireHaproxy(t: Test): boolean {
  if (haproxyInstalled()) return true;
  if (process.env['CI'] === 'true') throw new Error('haproxy is not installed (bash scripts/test-env.sh up installs it): CI=true must not skip');
  t.plan(0, 'haproxy is not installed');
  return false;
}
