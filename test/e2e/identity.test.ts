// docs/state.md#identity through the real binary and engine: state belongs to the container Tidewatch acted
// on. Tidewatch's own replacements carry it (a rollback's new container is held); a container someone else
// creates under the same name starts with none: no rollback (404), no hold, no last check.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, pushNext, runningOn, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-identity-token-0123456789';

interface Container {
  name: string;
  id: string;
  image_id: string;
  checked_at?: string;
  held?: boolean;
  rollback_available?: boolean;
}

async function serve(t: { teardown(fn: () => unknown): void }, s: Scenario): Promise<RunningService> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-identity-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const service = await startService([
    '--host', s.env.dockerHost, '--http-api-endpoints', 'check,containers,update,audit,rollback', '--http-api-token', TOKEN,
    '--data-dir', dir, '--update-grace-period', '1s', '--stop-timeout', '5s', `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });

async function container(service: RunningService, name: string): Promise<Container | undefined> {
  const body = (await call(`${service.url}/v1/containers`, { token: TOKEN })).body as { containers: Container[] };
  return body.containers.find((c) => c.name === name);
}

t.test('a container recreated by hand under the same name has none of the old one\'s state', async (t) => {
  const s = await scenario(t, 'e2e-identity');
  if (!s) return;
  const app = await runningOn(s, 'app');
  await pushNext(s, app);
  const service = await serve(t, s);

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } });
  t.match(await container(service, app.name), { rollback_available: true, checked_at: String }, 'updated: its previous image is known');
  const rolled = await post(service, `/v1/rollback?container=${app.name}`);
  t.equal(rolled.status, 200, rolled.text);
  t.match(await container(service, app.name), { held: true }, 'the rollback\'s new container inherits the hold');
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'and the hold skips it');
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } });

  // What people do to change a label or swap the application: remove it and run another under the name.
  const other = await pushImage({ registry: s.env.registry, repo: `${s.prefix}/other`, marker: `${s.prefix} other`, cmd: QUICK_STOP_CMD });
  await pullImage(s.engine, other.ref);
  await s.engine.getContainer(app.name).remove({ force: true });
  await runContainer(s.engine, { name: app.name, image: other.ref });
  const mine = await container(service, app.name);
  t.ok(mine, 'listed');
  t.notOk(mine?.held, 'not held');
  t.notOk(mine?.rollback_available, 'nothing to roll back');
  t.notOk(mine?.checked_at, 'never checked: no last check of the other container');

  const refused = await post(service, `/v1/rollback?container=${app.name}`);
  t.equal(refused.status, 404, refused.text);
  t.match(refused.body, { error: /never updated by this Tidewatch/ });
  t.equal((await s.engine.getContainer(app.name).inspect()).Config.Image, other.ref, 'the other application runs untouched');
  t.match((await post(service, `/v1/release?container=${app.name}`)).body, { released: false }, 'no hold to release');
});
