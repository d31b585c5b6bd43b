// Issue 2's thin path across every layer: a real container on the private engine, checked against
// the real registry through the real binary and its HTTP API (and the check's answer in /v1/containers/details).
import t from 'tap';
import { docker, requireEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../helpers/images.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-check-token-0123456789';

interface CheckRecord {
  name: string;
  image: string;
  update_available: boolean;
  latest_digest?: string;
  digest?: string;
  update_source: string;
  error?: string;
}

t.test('POST /v1/check reports a pushed image, pulls nothing, and needs the token', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('e2e-check');
  const name = `${prefix}-app`;
  t.teardown(() => removeContainers(engine, prefix));

  // The issue names this exact reference.
  const first = await pushImage({ registry: env.registry, repo: 'demo/app', marker: `${prefix}-v1` });
  await pullImage(engine, first.ref);
  await runContainer(engine, { name, image: first.ref });

  let service: RunningService | undefined;
  t.teardown(async () => void (await service?.stop()));
  service = await startService(
    ['--host', env.dockerHost, '--http-api-endpoints', 'check,containers,health', '--http-api-token', TOKEN, name],
    {},
  );

  const check = async () => {
    const res = await call(`${service?.url}/v1/check`, { method: 'POST', token: TOKEN });
    t.equal(res.status, 200, 'check answers 200');
    const body = res.body as { containers: CheckRecord[]; count: number; api_version: string; timestamp: string };
    t.equal(body.api_version, 'v1');
    t.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    t.equal(body.count, body.containers.length);
    const record = body.containers.find((c) => c.name === name);
    t.ok(record, 'our container is in the check result');
    return record as CheckRecord;
  };

  const before = await check();
  t.equal(before.update_available, false, 'up to date right after starting');
  t.equal(before.update_source, 'registry');
  t.equal(before.error, undefined);
  t.equal(before.image, first.ref);

  // Only this file's repository is compared: the engine is shared with the files running beside this one,
  // which pull images of their own meanwhile.
  const repository = `${env.registry}/demo/app`;
  const ours = async () =>
    (await engine.listImages())
      .filter((i) => [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])].some((r) => r.startsWith(`${repository}:`) || r.startsWith(`${repository}@`)))
      .map((i) => i.Id)
      .sort();
  const imagesBefore = await ours();
  const second = await pushImage({ registry: env.registry, repo: 'demo/app', marker: `${prefix}-v2` });
  t.not(second.digest, first.digest, 'the new image is different');

  const after = await check();
  t.equal(after.update_available, true, 'a new image on the same tag is an update');
  t.equal(after.latest_digest, second.digest, 'latest_digest is the pushed digest');
  t.same(await ours(), imagesBefore, 'the check pulled nothing');
  const all = await engine.listImages();
  t.notOk(all.some((i) => i.Id === second.configDigest), 'the new image is on no engine list');
  t.equal((await engine.getImage(first.ref).inspect()).Id, first.configDigest, 'the tag still names the first image on the engine');

  // The Watchtower fork's details say what that check found (docs/http-api.md#get-v1containersdetails).
  const details = await call(`${service.url}/v1/containers/details?name=${name}`, { token: TOKEN });
  t.equal(details.status, 200);
  t.match(details.body, { containers: [{ name, image: first.ref, running: true, stale: true, checked_at: String }], count: 1 });

  const anonymous = await call(`${service.url}/v1/check`, { method: 'POST' });
  t.equal(anonymous.status, 401);
  t.match(anonymous.body, { error: String, api_version: 'v1', timestamp: String });
  const wrong = await call(`${service.url}/v1/check`, { method: 'POST', token: 'not-the-token' });
  t.equal(wrong.status, 401);

  const live = await call(`${service.url}/livez`);
  t.match(live.body, { status: 'ok' });
});
