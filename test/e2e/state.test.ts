// docs/state.md through the real binary, engine and registry: the last check survives a restart; an update,
// a rollback on demand, the hold it leaves and its release, in the audit trail; a rollback whose previous
// image cannot start leaves the current container running; cleanup keeps the previous image for
// --rollback-retention and removes it after.
import t from 'tap';
import { pushNext, runningOn, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, type RunningService } from '../helpers/service.js';
import { serveScenario, tempDir, type Teardown } from '../helpers/fixtures.js';

const TOKEN = 'e2e-state-token-0123456789abc';
const ENDPOINTS = 'check,containers,update,history,audit,rollback';

interface Container {
  name: string;
  image_id: string;
  update_available?: boolean;
  latest_digest?: string;
  checked_at?: string;
  held?: boolean;
}

async function serve(t: Teardown, s: Scenario, dataDir: string, extra: string[] = []): Promise<RunningService> {
  return serveScenario(t, { host: s.env.dockerHost, prefix: s.prefix }, [
    '--http-api-endpoints', ENDPOINTS, '--http-api-token', TOKEN, '--data-dir', dataDir, '--update-grace-period', '1s', '--stop-timeout', '5s', ...extra,
  ]);
}

async function containers(service: RunningService): Promise<Map<string, Container>> {
  const res = await call(`${service.url}/v1/containers`, { token: TOKEN });
  const body = res.body as { containers: Container[] };
  return new Map(body.containers.map((c) => [c.name, c]));
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });

t.test('the last check is in /v1/containers, and still there after a restart', async (t) => {
  const s = await scenario(t, 'e2e-state-check');
  if (!s) return;
  const app = await runningOn(s, 'app');
  const v2 = await pushNext(s, app);
  const dir = await tempDir(t, 'state');
  const first = await serve(t, s, dir);
  t.notOk((await containers(first)).get(app.name)?.checked_at, 'never checked: no check fields');
  t.equal((await post(first, '/v1/check')).status, 200);
  const checked = (await containers(first)).get(app.name);
  t.match(checked, { update_available: true, latest_digest: v2.digest, checked_at: /^\d{4}-\d\d-\d\dT/ });
  t.equal(await first.stop(), 0);

  const second = await serve(t, s, dir);
  t.same((await containers(second)).get(app.name), checked, 'the same last check after a restart');
  const history = (await call(`${second.url}/v1/history`, { token: TOKEN })).body as { entries: { kind: string; trigger: string }[] };
  t.match(history.entries, [{ kind: 'check', trigger: 'api' }], 'the run history survives the restart too');
  const details = await call(`${second.url}/v1/containers/details`, { token: TOKEN });
  t.match((details.body as { containers: Container[] }).containers.find((c) => c.name === app.name), {
    stale: true, update_available: true, latest_digest: v2.digest, checked_at: checked?.checked_at,
  });
});

t.test('update, rollback, hold, release: each in the audit trail; 404 and 409', async (t) => {
  const s = await scenario(t, 'e2e-state-rollback');
  if (!s) return;
  const app = await runningOn(s, 'app');
  const v1Id = (await s.engine.getImage(app.image.ref).inspect()).Id;
  const v2 = await pushNext(s, app);
  const service = await serve(t, s, await tempDir(t, 'state'));

  t.equal((await post(service, `/v1/rollback?container=${app.name}`)).status, 404, 'never updated: no previous image');
  t.equal((await post(service, '/v1/rollback')).status, 400, 'a container is required');

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } });
  const v2Id = (await s.engine.getContainer(app.name).inspect()).Image;
  t.not(v2Id, v1Id, 'updated to v2');
  t.match((await call(`${service.url}/v1/audit?container=${app.name}`, { token: TOKEN })).body, {
    entries: [{ action: 'update', outcome: 'updated', container: app.name, trigger: 'api', run_id: String, from: { image_id: v1Id, digest: app.image.digest }, to: { image_id: v2Id, digest: v2.digest } }],
    count: 1,
  });

  const rolled = await post(service, `/v1/rollback?container=${app.name}`);
  t.equal(rolled.status, 200, rolled.text);
  t.match(rolled.body, { summary: { updated: 1, failed: 0 }, container: app.name, from: { image_id: v2Id }, to: { image_id: v1Id } });
  const afterRollback = await s.engine.getContainer(app.name).inspect();
  t.equal(afterRollback.Image, v1Id, 'runs the previous image again');
  t.ok(afterRollback.State.Running);
  t.match((await containers(service)).get(app.name), { held: true, image_id: v1Id });

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'the hold skips it');
  t.equal((await s.engine.getContainer(app.name).inspect()).Image, v1Id, 'still on the previous image');
  const check = (await post(service, `/v1/check?container=${app.name}`)).body as { containers: { held?: boolean; update_available: boolean }[] };
  t.match(check.containers[0], { held: true, update_available: true }, 'the check record says held');

  t.match((await post(service, `/v1/release?container=${app.name}`)).body, { released: true, container: app.name });
  t.match((await post(service, `/v1/release?container=${app.name}`)).body, { released: false }, 'nothing left to release');
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } });
  t.equal((await s.engine.getContainer(app.name).inspect()).Image, v2Id, 'released: updated again');
  t.notOk((await containers(service)).get(app.name)?.held);

  const audit = (await call(`${service.url}/v1/audit?container=${app.name}`, { token: TOKEN })).body as { entries: { action: string; outcome: string }[] };
  // The release that lifted the hold is a decision too, with its own entry (docs/people.md#a-name-on-every-decision).
  t.same(audit.entries.map((e) => `${e.action}:${e.outcome}`), ['update:updated', 'rollback:rolled_back', 'release:released', 'update:updated']);
  t.equal((await call(`${service.url}/v1/audit?limit=x`, { token: TOKEN })).status, 400);
  t.equal((await call(`${service.url}/v1/audit?since=yesterday`, { token: TOKEN })).status, 400);
  t.equal((await call(`${service.url}/v1/audit`)).status, 401);

  await s.engine.getImage(v1Id).remove({ force: true });
  const gone = await post(service, `/v1/rollback?container=${app.name}`);
  t.equal(gone.status, 409, 'the previous image is no longer there');
  t.match(gone.body, { error: /no longer present/, api_version: 'v1' });
});

t.test('a rollback whose previous image exits at start leaves the current container running', async (t) => {
  const s = await scenario(t, 'e2e-state-badprev');
  if (!s) return;
  const volume = await tempDir(t, 'vol');
  // v1 refuses to start once v2 has run (v2 leaves a mark in the shared directory).
  const app = await runningOn(s, 'app', {
    image: { cmd: ['/bin/sh', '-c', "[ -e /data/v2 ] && exit 1; trap 'exit 0' TERM; sleep 3600 & wait"] },
    run: { hostConfig: { Binds: [`${volume}:/data`] } },
  });
  await pushNext(s, app, { cmd: ['/bin/sh', '-c', "touch /data/v2; trap 'exit 0' TERM; sleep 3600 & wait"] });
  const service = await serve(t, s, await tempDir(t, 'state'));
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } });
  const current = await s.engine.getContainer(app.name).inspect();

  const rolled = await post(service, `/v1/rollback?container=${app.name}`);
  t.equal(rolled.status, 200, rolled.text);
  t.match(rolled.body, { summary: { updated: 0, failed: 1 } });
  const after = await s.engine.getContainer(app.name).inspect();
  t.equal(after.Id, current.Id, 'the current container is the one running');
  t.ok(after.State.Running, 'and it runs');
  t.notOk((await containers(service)).get(app.name)?.held, 'a failed rollback holds nothing');
  const audit = (await call(`${service.url}/v1/audit?container=${app.name}&limit=1`, { token: TOKEN })).body as { entries: unknown[] };
  t.match(audit.entries, [{ action: 'rollback', outcome: 'failed', error: String }]);
});

t.test('cleanup keeps the previous image for --rollback-retention, then removes it', async (t) => {
  const s = await scenario(t, 'e2e-state-retention');
  if (!s) return;
  const app = await runningOn(s, 'app');
  const v1Id = (await s.engine.getImage(app.image.ref).inspect()).Id;
  await pushNext(s, app);
  const service = await serve(t, s, await tempDir(t, 'state'), ['--cleanup', '--rollback-retention', '4s']);
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } });
  t.ok(await s.engine.getImage(v1Id).inspect(), 'kept after the update');
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0 } });
  t.ok(await s.engine.getImage(v1Id).inspect(), 'kept by a run within the retention');
  await new Promise((r) => setTimeout(r, 4500));
  await post(service, '/v1/update');
  const gone = await s.engine.getImage(v1Id).inspect().then(() => 200, (err: { statusCode?: number }) => err.statusCode);
  t.equal(gone, 404, 'removed by the first run after it');
});

t.test('an update whose new image exits at start is undone, and the audit trail says so', async (t) => {
  const s = await scenario(t, 'e2e-state-autorollback');
  if (!s) return;
  const app = await runningOn(s, 'app');
  await pushNext(s, app, { cmd: ['/bin/sh', '-c', 'exit 3'] });
  const service = await serve(t, s, await tempDir(t, 'state'));
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, failed: 1 } });
  const audit = (await call(`${service.url}/v1/audit?container=${app.name}`, { token: TOKEN })).body as { entries: unknown[] };
  t.match(audit.entries, [{ action: 'update', outcome: 'rolled_back', trigger: 'api', error: String }]);
  t.equal((await post(service, `/v1/rollback?container=${app.name}`)).status, 404, 'no update went through: nothing to roll back');
});
