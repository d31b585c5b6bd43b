// --no-pull through the binary: the Docker runtime's local images feed the no-pull source, and the
// registry is never contacted (its access log proves it).
import t from 'tap';
import { logMark } from '../helpers/env.js';
import { pullImage } from '../helpers/images.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-no-pull-token-0123456789';

t.test('--no-pull compares with the local image of the same tag and contacts no registry', async (t) => {
  const s = await scenario(t, 'e2e-no-pull');
  if (!s) return;
  const { env, engine, prefix } = s;
  const running = await runningOn(s);
  const { repo } = running;

  const service = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-pull', `${prefix}-.*`]);
  t.teardown(() => service.stop());

  const record = async () => {
    const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
    t.equal(res.status, 200);
    return (res.body as { containers: { name: string; update_available: boolean; latest_image_id: string; error?: string }[] }).containers[0];
  };

  // Every registry request during a check would be Tidewatch's: the engine's own pulls happen outside.
  const checkedQuietly = async () => {
    const mark = await logMark(env.registryLog);
    const result = await record();
    await new Promise((r) => setTimeout(r, 300));
    // Other test files share the registry: only this repository's lines are ours.
    t.same((await mark.read()).filter((line) => line.includes(repo)), [], 'the check sent nothing to the registry');
    return result;
  };

  await pushNext(s, running);
  const beforePull = await checkedQuietly();
  t.match(beforePull, { name: `${prefix}-app`, update_available: false }, 'the new push is invisible without pulling');
  t.equal(beforePull?.error, undefined);

  await pullImage(engine, `${env.registry}/${repo}:latest`);
  const afterPull = await checkedQuietly();
  t.equal(afterPull?.update_available, true, 'the local tag now names a newer image');
  t.equal(afterPull?.latest_image_id, (await engine.getImage(`${env.registry}/${repo}:latest`).inspect()).Id);
});
