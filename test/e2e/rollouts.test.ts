// Staged rollouts through the real binary (docs/rollouts.md, issue 47): three real engines as --host entries
// with stages — the private engine over its socket in stage 1, the TLS engine and Docker 26 in stage 2. A pushed
// candidate updates stage 1, waits out the soak (across a restart of Tidewatch), then updates stage 2; a
// candidate that fails its proof on the stage-1 host halts stage 2 (skipped with the reason, an event on the
// stream, a notification) until a person releases it, or until a newer candidate supersedes it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { CaptureServer } from '../helpers/capture-server.js';
import { docker, requireDocker26, requireTwoEngines, secondDocker, waitFor, type TwoEngineEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix, type PushedImage } from '../helpers/images.js';
import { call, startService, type RunningService } from '../helpers/service.js';
import DockerClient from 'dockerode';

const TOKEN = 'e2e-rollouts-token-0123456789';
const EVENTS_TOKEN = 'e2e-rollouts-events-0123456789';
/** Exits at once when FAIL_V2 is set and the image is v2 (it carries /v2): a proof that fails on one host only. */
const CMD = ['/bin/sh', '-c', "trap 'exit 0' TERM; if [ -n \"$FAIL_V2\" ] && [ -e /v2 ]; then exit 3; fi; sleep 3600 & wait"];

interface Fleet {
  readonly env: TwoEngineEnv;
  readonly prefix: string;
  /** [host as configured, engine, stage] */
  readonly engines: readonly { host: string; entry: string; engine: Docker; stage: number }[];
  readonly dir: string;
}

interface RolloutJson {
  id: string;
  image: string;
  digest: string;
  state: string;
  stages: { stage: number; hosts: string[]; state: string; soak_until?: string }[];
  superseded_by?: string;
  reason?: string;
}

async function fleet(t: Test, label: string): Promise<Fleet | undefined> {
  const env = await requireTwoEngines(t);
  if (!env) return undefined;
  const env26 = await requireDocker26(t);
  if (!env26) return undefined;
  const prefix = testPrefix(label);
  const engines = [
    { host: env.dockerHost, entry: `${env.dockerHost}?stage=1`, engine: docker(env), stage: 1 },
    { host: env.secondDockerHost, entry: `${env.secondDockerHost}?tlsverify=1&cert-path=${env.secondCertPath}&stage=2`, engine: secondDocker(env), stage: 2 },
    { host: env26.docker26Host, entry: `${env26.docker26Host}?stage=2`, engine: new DockerClient({ socketPath: env26.docker26Socket }), stage: 2 },
  ];
  const dir = await mkdtemp(join(tmpdir(), 'tw-rollouts-'));
  t.teardown(async () => {
    for (const { engine } of engines) {
      await removeContainers(engine, prefix);
      await removeImages(engine, prefix);
    }
    await rm(dir, { recursive: true, force: true });
  });
  return { env, prefix, engines, dir };
}

async function serve(t: Test, f: Fleet, extra: string[]): Promise<RunningService> {
  const service = await startService([
    ...f.engines.flatMap((e) => ['--host', e.entry]),
    '--http-api-endpoints', 'update,rollouts,events',
    '--http-api-token', TOKEN,
    '--http-api-events-token', EVENTS_TOKEN,
    '--data-dir', f.dir,
    '--update-grace-period', '2s',
    '--stop-timeout', '5s',
    ...extra,
    `${f.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

async function deploy(f: Fleet, image: PushedImage, env: (stage: number) => string[] = () => []): Promise<void> {
  for (const { engine, stage } of f.engines) {
    await pullImage(engine, image.ref);
    await runContainer(engine, { name: `${f.prefix}-app`, image: image.ref, cmd: CMD, env: env(stage) });
  }
}

async function imagesNow(f: Fleet): Promise<string[]> {
  return Promise.all(f.engines.map(async ({ engine }) => (await engine.getContainer(`${f.prefix}-app`).inspect()).Image));
}

async function rollouts(service: RunningService): Promise<RolloutJson[]> {
  const res = await call(`${service.url}/v1/rollouts`, { token: TOKEN });
  if (res.status !== 200) throw new Error(`rollouts answered ${res.status}: ${res.text}`);
  return (res.body as { rollouts: RolloutJson[] }).rollouts;
}

async function plannedSkips(service: RunningService): Promise<{ container: string; host: string; reason: string }[]> {
  const res = await call(`${service.url}/v1/plan`, { method: 'POST', token: TOKEN });
  if (res.status !== 201) throw new Error(`plan answered ${res.status}: ${res.text}`);
  return (res.body as { skipped: { container: string; host: string; reason: string }[] }).skipped;
}

/** Every SSE frame of the stream from now on, as text. */
function eventStream(t: Test, service: RunningService): { text: () => string } {
  const controller = new AbortController();
  let text = '';
  void (async () => {
    try {
      const res = await fetch(`${service.url}/v1/events`, { headers: { authorization: `Bearer ${EVENTS_TOKEN}` }, signal: controller.signal });
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString('utf8');
    } catch {
      // aborted at teardown
    }
  })();
  t.teardown(() => controller.abort());
  return { text: () => text };
}

t.test('a candidate updates stage 1, soaks across a restart, then updates stage 2 on its own', async (t) => {
  const f = await fleet(t, 'e2e-rollsoak');
  if (!f) return;
  const repo = `${f.prefix}/app`;
  const v1 = await pushImage({ registry: f.env.registry, repo, marker: 'v1', cmd: CMD });
  await deploy(f, v1);
  const v2 = await pushImage({ registry: f.env.registry, repo, marker: 'v2', cmd: CMD });

  const soak = ['--rollout-soak', '15s'];
  const first = await serve(t, f, soak);
  const res = await call(`${first.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { summary: { updated: 1, skipped: 2, failed: 0 } }, 'only stage 1 is updated by the run');
  t.same(await imagesNow(f), [v2.configDigest, v1.configDigest, v1.configDigest], 'stage 1 runs v2, stage 2 still v1');
  const [started] = await rollouts(first);
  t.match(started, {
    image: v1.ref,
    digest: v2.digest,
    state: 'soaking',
    stages: [
      { stage: 1, hosts: [f.engines[0]?.host], state: 'soaking' },
      { stage: 2, hosts: [f.engines[1]?.host, f.engines[2]?.host].sort(), state: 'waiting' },
    ],
  }, 'GET /v1/rollouts: stage 1 soaking, stage 2 waiting');
  const soakUntil = Date.parse(started?.stages[0]?.soak_until ?? '');
  t.ok(soakUntil > Date.now(), 'the soak ends in the future');

  // A restart during the soak keeps the wait: the store holds the rollout, the timer is set again.
  t.equal(await first.stop(), 0);
  const second = await serve(t, f, soak);
  const skips = await plannedSkips(second);
  t.same(
    skips.map((s) => [s.host, s.reason.replace(/until .*/, 'until …')]).sort(),
    [[f.engines[1]?.host, 'rollout waiting: stage 1 soaking until …'], [f.engines[2]?.host, 'rollout waiting: stage 1 soaking until …']].sort(),
    'after the restart, stage 2 still waits for the soak (a plan shows why)',
  );
  const again = await call(`${second.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(again.body, { summary: { updated: 0 } }, 'an update run during the soak applies nothing to stage 2');
  t.same(await imagesNow(f), [v2.configDigest, v1.configDigest, v1.configDigest]);

  // The soak ends: the next stage runs on its own, no request needed.
  await waitFor(async () => ((await imagesNow(f)).every((id) => id === v2.configDigest) ? true : undefined), 60_000, 500);
  t.ok(Date.now() >= soakUntil, 'stage 2 was replaced only after the soak');
  const [done] = await waitFor(async () => {
    const list = await rollouts(second);
    return list[0]?.state === 'done' ? list : undefined;
  }, 10_000);
  t.match(done, { state: 'done', stages: [{ stage: 1, state: 'done' }, { stage: 2, state: 'done' }] }, 'the rollout is done');
});

t.test('a failed proof on the stage-1 host halts stage 2 until it is released', async (t) => {
  const f = await fleet(t, 'e2e-rollhalt');
  if (!f) return;
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  const repo = `${f.prefix}/app`;
  const v1 = await pushImage({ registry: f.env.registry, repo, marker: 'v1', cmd: CMD });
  await deploy(f, v1, (stage) => (stage === 1 ? ['FAIL_V2=1'] : []));
  const v2 = await pushImage({ registry: f.env.registry, repo, marker: 'v2', cmd: CMD, files: { v2: 'yes' } });

  const service = await serve(t, f, ['--rollout-soak', '0s', '--notification-url', `generic+http://${hook.host}/hook`]);
  const events = eventStream(t, service);
  const first = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(first.body, { summary: { updated: 0, failed: 1, skipped: 2 } }, 'stage 1 failed its proof and was rolled back; stage 2 waited');
  t.same(await imagesNow(f), [v1.configDigest, v1.configDigest, v1.configDigest], 'every host runs v1');
  const mainHost = f.engines[0]?.host as string;
  const [halted] = await rollouts(service);
  t.match(halted, { state: 'halted', reason: `rollout halted: ${mainHost} failed`, stages: [{ stage: 1, state: 'halted' }, { stage: 2, state: 'waiting' }] });

  const skips = await plannedSkips(service);
  const stage2 = skips.filter((s) => s.host !== mainHost).map((s) => s.reason);
  t.same(stage2, [`rollout halted: ${mainHost} failed`, `rollout halted: ${mainHost} failed`], 'stage 2 is skipped with the halt\'s reason');
  const run = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(run.body, { summary: { updated: 0 } }, 'no run updates stage 2 while halted');
  const frame = await waitFor(() => events.text().split('\n\n').find((f) => f.includes('event: rollout_halted')), 10_000);
  t.match(frame, new RegExp(`"host":"${mainHost.replace(/[/.]/g, '\\$&')}"`), 'a rollout_halted event on the stream names the host');
  const notice = await waitFor(() => hook.requests.find((r) => r.body.includes('halted')), 10_000);
  t.match(notice.body, new RegExp(`rollout of .* halted: ${f.prefix}-app on ${mainHost.replace(/[/.]/g, '\\$&')} \\(stage 1\\) failed`), 'a notification says which host failed');

  const unknown = await call(`${service.url}/v1/rollouts/0123456789abcdef/release`, { method: 'POST', token: TOKEN });
  t.equal(unknown.status, 404, 'releasing an unknown rollout is 404');
  const released = await call(`${service.url}/v1/rollouts/${halted?.id}/release`, { method: 'POST', token: TOKEN });
  t.equal(released.status, 202, released.text);
  await waitFor(async () => {
    const ids = await imagesNow(f);
    return ids[1] === v2.configDigest && ids[2] === v2.configDigest ? true : undefined;
  }, 60_000, 500);
  t.equal((await imagesNow(f))[0], v1.configDigest, 'the stage-1 host stays on v1');
  const [done] = await waitFor(async () => {
    const list = await rollouts(service);
    return list[0]?.state === 'done' ? list : undefined;
  }, 10_000);
  t.match(done, { state: 'done', released: { by: /./ } }, 'released, the rollout completes');
  const twice = await call(`${service.url}/v1/rollouts/${halted?.id}/release`, { method: 'POST', token: TOKEN });
  t.equal(twice.status, 409, 'a rollout that is not halted cannot be released');
});

t.test('a newer candidate clears the halt', async (t) => {
  const f = await fleet(t, 'e2e-rollnewer');
  if (!f) return;
  const repo = `${f.prefix}/app`;
  const v1 = await pushImage({ registry: f.env.registry, repo, marker: 'v1', cmd: CMD });
  await deploy(f, v1, (stage) => (stage === 1 ? ['FAIL_V2=1'] : []));
  await pushImage({ registry: f.env.registry, repo, marker: 'v2', cmd: CMD, files: { v2: 'yes' } });
  const service = await serve(t, f, ['--rollout-soak', '0s']);
  await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  const [halted] = await rollouts(service);
  t.equal(halted?.state, 'halted');

  const v3 = await pushImage({ registry: f.env.registry, repo, marker: 'v3', cmd: CMD });
  const run = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(run.body, { summary: { updated: 1 } }, 'the newer candidate goes to stage 1');
  await waitFor(async () => ((await imagesNow(f)).every((id) => id === v3.configDigest) ? true : undefined), 60_000, 500);
  const list = await waitFor(async () => {
    const all = await rollouts(service);
    return all.every((r) => r.state === 'done') ? all : undefined;
  }, 10_000);
  const older = list.find((r) => r.id === halted?.id);
  const newer = list.find((r) => r.id !== halted?.id);
  t.match(older, { state: 'done', superseded_by: newer?.id }, 'the halted rollout was superseded by the newer candidate\'s');
  t.match(newer, { digest: v3.digest, state: 'done' });
});
