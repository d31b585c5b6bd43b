// Containers that join another's namespaces (docs/replacement.md#shared-namespaces): a child started with
// `--network container:<parent>`, `--ipc container:<parent>` and `--pid container:<parent>` follows its parent
// through the parent's update, a rollback on demand, and a SIGKILL in the middle of the update followed by a
// start that repairs it. Each time it ends running in the live parent's namespaces, and stays its dependent.
// The update and rollback run on Docker 20.10 and on Docker 28.5 with the containerd image store (docs/engines.md).
import { join } from 'node:path';
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { waitFor } from '../helpers/env.js';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { namespaceOf } from '../helpers/namespace-of.js';
import { QUICK_STOP_CMD, docker28StoreScenario, mainScenario, pushNext, runningOn, type EngineScenario, type RunningOn, type Scenario } from '../helpers/scenarios.js';
import { call, runBinary, type RunningService } from '../helpers/service.js';
import { serveScenario, tempDir } from '../helpers/fixtures.js';

const TOKEN = 'e2e-namespaces-token-0123456789';
const NAMESPACES = ['net', 'ipc', 'pid'] as const;

interface Family {
  readonly parent: RunningOn;
  readonly child: string;
  readonly childRepo: string;
}

/** A parent sharing its IPC namespace, and a child joined to its network, IPC and PID namespaces. */
async function family(s: Scenario, childImage: Partial<Parameters<typeof pushImage>[0]> = {}): Promise<Family> {
  const parent = await runningOn(s, 'parent', { run: { hostConfig: { IpcMode: 'shareable' } } });
  const childRepo = `${s.prefix}/child`;
  const image = await pushImage({ registry: s.env.registry, repo: childRepo, marker: `${childRepo} v1`, cmd: QUICK_STOP_CMD, ...childImage });
  await pullImage(s.engine, image.ref);
  const child = `${s.prefix}-child`;
  const joined = `container:${parent.name}`;
  await runContainer(s.engine, { name: child, image: image.ref, hostConfig: { NetworkMode: joined, IpcMode: joined, PidMode: joined } as Docker.HostConfig });
  return { parent, child, childRepo };
}

/** The child runs, names the live parent in every mode, and shares its namespaces; no leftover container. */
async function assertFollows(t: Test, s: Scenario, f: Family, because: string): Promise<string> {
  const parent = await s.engine.getContainer(f.parent.name).inspect();
  const child = await s.engine.getContainer(f.child).inspect();
  t.ok(parent.State.Running && child.State.Running, `${because}: parent and child running`);
  const host = child.HostConfig as Docker.HostConfig & { PidMode?: string };
  t.same([host.NetworkMode, host.IpcMode, host.PidMode], Array(3).fill(`container:${parent.Id}`), `${because}: the child names the live parent`);
  for (const kind of NAMESPACES) {
    t.equal(await namespaceOf(s.engine, f.child, kind), await namespaceOf(s.engine, f.parent.name, kind), `${because}: one ${kind} namespace`);
  }
  const ours = (await s.engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(s.prefix)));
  t.same(ours.map((c) => c.Names[0]?.replace(/^\//, '')).sort(), [f.child, f.parent.name].sort(), `${because}: nothing left aside`);
  return parent.Id;
}

async function serve(t: Test, s: EngineScenario, extra: string[]): Promise<RunningService> {
  return serveScenario(t, s, ['--http-api-endpoints', 'update,rollback', '--http-api-token', TOKEN, '--stop-timeout', '2s', ...extra]);
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });

const ENGINES = [['Docker 20.10', mainScenario], ['Docker 28.5 containerd store', docker28StoreScenario]] as const;

for (const [label, engineScenario] of ENGINES) {
  t.test(`${label}: a child in its parent's network, IPC and PID namespaces follows the parent's update and rollback`, async (t) => {
    const s = await engineScenario(t, `e2e-ns-update-${label.replace(/\D/g, '')}`);
    if (!s) return;
    const f = await family(s);
    // The image id the parent runs: the config digest in the classic store, the manifest's in the containerd store.
    const { Id: v1Parent, Image: v1Image } = await s.engine.getContainer(f.parent.name).inspect();
    await pushNext(s, f.parent);
    const service = await serve(t, s, ['--data-dir', await tempDir(t, 'namespaces'), '--update-grace-period', '1s']);

    const updated = await post(service, '/v1/update');
    t.match(updated.body, { summary: { updated: 1, failed: 0, restarted: 1 } }, updated.text);
    const afterUpdate = await assertFollows(t, s, f, 'after the update');
    t.not(afterUpdate, v1Parent, 'the parent was replaced');

    // The child is still the parent's dependent: the rollback (another replacement) takes it along again.
    const rolled = await post(service, `/v1/rollback?container=${f.parent.name}`);
    t.equal(rolled.status, 200, rolled.text);
    t.match(rolled.body, { summary: { failed: 0 } });
    const afterRollback = await assertFollows(t, s, f, 'after the rollback');
    t.not(afterRollback, afterUpdate, 'the parent was replaced again');
    t.equal((await s.engine.getContainer(f.parent.name).inspect()).Image, v1Image, 'on v1 again');
  });
}

t.test('SIGKILL in the middle of the update, then a start: the child ends in the live parent\'s namespaces', async (t) => {
  const s = await mainScenario(t, 'e2e-ns-killed');
  if (!s) return;
  // The child's own image has a health check that never runs within the test: after the parent's 10 s proof
  // the service sits in the child's (up to --update-health-timeout), when it is killed.
  const hour = 3600 * 1_000_000_000;
  const f = await family(s, { healthcheck: { Test: ['CMD', '/bin/true'], Interval: hour, StartPeriod: hour } });
  const oldChild = (await s.engine.getContainer(f.child).inspect()).Id;
  await pushNext(s, f.parent);
  const first = await serve(t, s, ['--update-grace-period', '10s']);
  void post(first, '/v1/update').catch(() => undefined);
  await waitFor(async () => {
    const holder = await s.engine.getContainer(f.child).inspect().catch(() => undefined);
    return holder !== undefined && holder.Id !== oldChild && holder.State.Running;
  }, 60_000);
  await first.stop('SIGKILL');

  const second = await runBinary(['--host', s.env.dockerHost, '--run-once', '--update-grace-period', '0s', '--stop-timeout', '2s', `${s.prefix}-.*`], {}, 120_000);
  t.equal(second.code, 0, second.stdout);
  await assertFollows(t, s, f, 'after the repairing start');
});
