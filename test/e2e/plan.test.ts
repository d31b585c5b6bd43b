// The exact plan end to end (docs/plans.md), through the built binary, the real engine and the local registry:
// POST /v1/plan decides (pulling nothing), POST /v1/update?plan=ID applies exactly the planned digests in the
// planned waves, with their linked restarts, even after a newer push; a second apply is 409, a container recreated in between is skipped `changed since plan`,
// an expired plan is 404.
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, pushNext, runningOn, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-plan-token-0123456789abcdef';

interface PlanBody {
  plan_id: string;
  expires_at: string;
  steps: { container: string; wave: number; from: { image: string; digest: string }; to: { image: string; digest?: string; tag?: string }; restarts: string[] }[];
  skipped: { container: string; reason: string }[];
}

interface AppliedBody {
  plan_id: string;
  summary: { updated: number; skipped: number; failed: number };
  steps: { container: string; outcome: string; reason?: string }[];
}

async function serviceFor(t: { teardown(fn: () => unknown): void }, s: Scenario, extra: string[] = []): Promise<RunningService> {
  const service = await startService([
    '--host', s.env.dockerHost,
    '--http-api-endpoints', 'update',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    ...extra,
    // Only this test's containers: other test files share the engine.
    `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

async function decide(service: RunningService): Promise<PlanBody> {
  const res = await call(`${service.url}/v1/plan`, { method: 'POST', token: TOKEN });
  if (res.status !== 201) throw new Error(`POST /v1/plan answered ${res.status}: ${res.text}`);
  return res.body as PlanBody;
}

const apply = (service: RunningService, id: string) => call(`${service.url}/v1/update?plan=${id}`, { method: 'POST', token: TOKEN });

t.test('plan, newer push, apply: exactly the planned digests, dependencies first; a second apply is 409', async (t) => {
  const s = await scenario(t, 'e2e-plan');
  if (!s) return;
  const db = await runningOn(s, 'db');
  const web = await runningOn(s, 'web', { run: { labels: { 'tidewatch.depends-on': db.name } } });
  // Not stale itself, but linked to db: recreated with db's step (Watchtower's linked restart).
  const sidecar = await runningOn(s, 'sidecar', { run: { labels: { 'tidewatch.depends-on': db.name } } });
  const dbV2 = await pushNext(s, db);
  const webV2 = await pushNext(s, web);
  const service = await serviceFor(t, s);

  const plan = await decide(service);
  t.same(
    plan.steps.map((step) => [step.container, step.wave, step.from.digest, step.to.digest]),
    [
      [db.name, 1, db.image.digest, dbV2.digest],
      [web.name, 2, web.image.digest, webV2.digest],
    ],
    'db first (web depends on it), each with its exact candidate',
  );
  t.same(plan.skipped, []);
  t.same(plan.steps.map((step) => step.restarts), [[sidecar.name], []], "db's step names its linked restart");
  t.match(plan.steps[0]?.to, { image: db.image.ref, tag: 'latest' }, 'the new container keeps its reference');
  t.equal((await s.engine.getContainer(db.name).inspect()).Id, db.container.id, 'deciding a plan replaced nothing');
  // Nor pulled: an update run starts its pulls once every gate passed, and a pull by digest retags the image.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  t.equal((await s.engine.getImage(db.image.ref).inspect()).Id, db.image.configDigest, 'the local tag still names v1');
  t.equal(await s.engine.getImage(dbV2.digestRef).inspect().then(() => true, () => false), false, 'v2 was not pulled');

  // A newer push after the plan: the tag now names v3, the plan still says v2.
  const dbV3 = await pushNext(s, db, { marker: `${db.repo} v3` });
  t.not(dbV3.digest, dbV2.digest);
  const res = await apply(service, plan.plan_id);
  t.equal(res.status, 200, res.text);
  const body = res.body as AppliedBody;
  t.equal(body.plan_id, plan.plan_id);
  t.same(body.steps.map((step) => [step.container, step.outcome]), [
    [db.name, 'updated'],
    [web.name, 'updated'],
  ]);
  t.match(body.summary, { updated: 2, failed: 0, restarted: 1 });

  const dbNow = await s.engine.getContainer(db.name).inspect();
  const webNow = await s.engine.getContainer(web.name).inspect();
  t.equal(dbNow.Image, dbV2.configDigest, 'db runs the planned v2, not the v3 pushed since');
  t.equal(webNow.Image, webV2.configDigest, 'web runs its planned v2');
  t.ok(dbNow.State.Running && webNow.State.Running, 'both running');
  t.ok(Date.parse(dbNow.Created) <= Date.parse(webNow.Created), 'wave 1 (db) was replaced before wave 2 (web)');
  const sidecarNow = await s.engine.getContainer(sidecar.name).inspect();
  t.not(sidecarNow.Id, sidecar.container.id, 'the linked restart was recreated');
  t.ok(sidecarNow.State.Running && sidecarNow.Image === sidecar.image.configDigest, 'on its own, unchanged image');

  const again = await apply(service, plan.plan_id);
  t.equal(again.status, 409);
  t.match(again.body, { code: 'TW_ERR_PLAN_APPLIED', api_version: 'v1' });
});

t.test('a container recreated since the plan is skipped; an expired plan is 404', async (t) => {
  const s = await scenario(t, 'e2e-plan-changed');
  if (!s) return;
  const app = await runningOn(s, 'app');
  await pushNext(s, app);
  // Long enough for the first plan to be applied under load, short enough to wait out for the second.
  const ttlSeconds = 20;
  const service = await serviceFor(t, s, ['--plan-ttl', `${ttlSeconds}s`]);

  const plan = await decide(service);
  t.same(plan.steps.map((step) => step.container), [app.name]);
  // Recreated on the very same image: another container id.
  await app.container.remove({ force: true });
  const again = await runContainer(s.engine, { name: app.name, image: app.image.ref, cmd: QUICK_STOP_CMD });
  const res = await apply(service, plan.plan_id);
  t.equal(res.status, 200, res.text);
  const body = res.body as AppliedBody;
  t.same(body.steps.map((step) => [step.container, step.outcome, step.reason]), [[app.name, 'skipped', 'changed since plan']]);
  t.match(body.summary, { updated: 0, skipped: 1 });
  const now = await s.engine.getContainer(app.name).inspect();
  t.equal(now.Id, again.id, 'the recreated container was left alone');
  t.equal(now.Image, app.image.configDigest, 'on its old image');

  const later = await decide(service);
  t.equal(later.steps.length, 1, 'the new container is planned anew');
  await waitFor(() => Date.now() > Date.parse(later.expires_at) + 500, (ttlSeconds + 10) * 1000, 250);
  const expired = await apply(service, later.plan_id);
  t.equal(expired.status, 404);
  t.match(expired.body, { code: 'TW_ERR_PLAN_NOT_FOUND' });
  t.equal((await s.engine.getContainer(app.name).inspect()).Id, again.id, 'the expired plan applied nothing');
});
