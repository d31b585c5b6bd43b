// Threat model row "an image that passes its proof, then fails" (docs/security.md#threat-model): the publisher's
// new image may start, pass its proof, then crash-loop or turn unhealthy; the soak's end must catch it before the
// next stage gets it (docs/rollouts.md#what-a-rollout-is). verifyStage asks the real engine about real
// containers: still running, never restarted, healthy; one that is gone fails too; an engine that does not
// answer decides nothing. Fails when the soak's check trusts the proof alone.
import { request } from 'node:http';
import t from 'tap';
import type { EngineApi } from '../../contracts/index.js';
import type { RolloutStage } from '../../plugins/rollouts/machine.js';
import { verifyStage } from '../../plugins/rollouts/verify.js';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';

/** The Engine API over the engine's socket, as the Docker runtime's engines answer it. */
function engineApi(host: string, socketPath: string): EngineApi {
  return {
    host,
    request<T>(method: string, path: string): Promise<T> {
      return new Promise((resolve, reject) => {
        const req = request({ socketPath, path, method }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => {
            if ((res.statusCode ?? 500) >= 400) reject(Object.assign(new Error(body), { statusCode: res.statusCode }));
            else resolve(JSON.parse(body) as T);
          });
        });
        req.on('error', reject);
        req.end();
      });
    },
  };
}

const stageOf = (host: string, ids: Record<string, string>): RolloutStage => ({
  stage: 1,
  state: 'soaking',
  members: Object.entries(ids).map(([container, id]) => ({ host, container, state: 'updated' as const, new_id: id })),
});

t.test('the soak\'s end: running, never restarted, healthy — else the rollout halts', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('sec-soak');
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'v2' });
  await pullImage(engine, image.ref);
  const up = await runContainer(engine, { name: `${prefix}-up`, image: image.ref });
  const looping = await runContainer(engine, { name: `${prefix}-loop`, image: image.ref, cmd: ['/bin/sh', '-c', 'sleep 1; exit 1'], restartPolicy: 'always' });
  const sick = await runContainer(engine, {
    name: `${prefix}-sick`,
    image: image.ref,
    healthcheck: { Test: ['CMD', '/bin/false'], Interval: 500_000_000, Timeout: 500_000_000, Retries: 1 },
  });
  const engines = { list: () => [engineApi(env.dockerHost, env.dockerSocket)] };
  const idOf = async (c: { id: string }) => c.id;

  t.same(await verifyStage(stageOf(env.dockerHost, { up: await idOf(up) }), engines), { kind: 'ok' }, 'running and never restarted: the stage passes');

  await waitFor(async () => ((await engine.getContainer(`${prefix}-loop`).inspect()).RestartCount > 0 ? true : undefined), 20_000, 250);
  t.match(await verifyStage(stageOf(env.dockerHost, { up: await idOf(up), loop: await idOf(looping) }), engines), { kind: 'failed', member: { container: 'loop' }, why: /restarted|not running/ }, 'a crash loop halts it');

  await waitFor(async () => ((await engine.getContainer(`${prefix}-sick`).inspect()).State.Health?.Status === 'unhealthy' ? true : undefined), 20_000, 250);
  t.match(await verifyStage(stageOf(env.dockerHost, { sick: await idOf(sick) }), engines), { kind: 'failed', why: /health unhealthy/ }, 'an unhealthy one halts it');

  t.match(await verifyStage(stageOf(env.dockerHost, { gone: 'f'.repeat(64) }), engines), { kind: 'failed', why: /is gone/ }, 'a replacement that is gone halts it');

  const down = { list: () => [engineApi(env.dockerHost, '/nonexistent/docker.sock')] };
  t.match(await verifyStage(stageOf(env.dockerHost, { up: await idOf(up) }), down), { kind: 'unknown' }, 'an engine that does not answer decides nothing');
});
