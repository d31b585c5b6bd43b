// POST /v1/plan and POST /v1/update?plan=ID over real HTTP (docs/http-api.md#plans) with stub taps: the plan's
// JSON, the apply's steps and outcomes, 404/409/400/401. The real engine and registry: test/e2e/plan.test.ts.
import t from 'tap';
import type { Staleness, UpdatePlan } from '../../../core/index.js';
import { bearer, startApi, target } from './helpers/harness.js';

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const staleTo = (d: string): Staleness => ({ source: 'registry', stale: true, currentDigest: digest('0'), latestDigest: d });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const post = (url: string, init: RequestInit = {}) => fetch(url, { method: 'POST', headers: bearer(), ...init });

interface PlanBody {
  plan_id: string;
  expires_at: string;
  targeted: boolean;
  steps: { container: string; wave: number; from: { image: string; digest: string }; to: { digest?: string }; restarts: string[] }[];
  skipped: { container: string; reason: string }[];
}

t.test('POST /v1/plan decides, applies nothing; ?plan=ID applies exactly the planned digest once', async (t) => {
  const applied: UpdatePlan[] = [];
  const h = await startApi(
    {},
    {
      targets: [target('web', { dependsOn: ['db'] }), target('db'), target('idle')],
      staleness: new Map([
        ['web', staleTo(digest('1'))],
        ['db', staleTo(digest('2'))],
      ]),
      apply: async (plan) => {
        applied.push(plan);
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const res = await post(`${h.url}/v1/plan`);
  t.equal(res.status, 201);
  const plan = (await res.json()) as PlanBody;
  t.match(plan.plan_id, UUID);
  t.ok(Date.parse(plan.expires_at) > Date.now() + 14 * 60_000, 'expires after the default 15m');
  t.equal(plan.targeted, false);
  t.same(plan.steps.map((s) => [s.container, s.wave, s.to.digest]), [
    ['db', 1, digest('2')],
    ['web', 2, digest('1')],
  ]);
  t.same(plan.skipped, []);
  t.equal(applied.length, 0, 'a plan applies nothing');

  // A newer push after the plan: the source now answers another digest for db.
  h.world.staleness.set('db', staleTo(digest('3')));
  const apply = await post(`${h.url}/v1/update?plan=${plan.plan_id}`);
  t.equal(apply.status, 200);
  const body = (await apply.json()) as { plan_id: string; summary: { updated: number }; steps: { container: string; outcome: string }[] };
  t.equal(body.plan_id, plan.plan_id);
  t.equal(body.summary.updated, 2);
  t.same(body.steps.map((s) => [s.container, s.outcome]), [
    ['db', 'updated'],
    ['web', 'updated'],
  ]);
  t.same(applied.map((p) => [p.target.name, p.staleness.latestDigest]), [
    ['db', digest('2')],
    ['web', digest('1')],
  ]);

  const again = await post(`${h.url}/v1/update?plan=${plan.plan_id}`);
  t.equal(again.status, 409);
  t.match(await again.json(), { code: 'TW_ERR_PLAN_APPLIED', api_version: 'v1' });
  const unknown = await post(`${h.url}/v1/update?plan=00000000-0000-4000-8000-000000000000`);
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { code: 'TW_ERR_PLAN_NOT_FOUND' });
});

t.test('a plan takes the filters of /v1/update, and none beside plan=ID', async (t) => {
  const h = await startApi({}, { targets: [target('web'), target('db')], staleness: new Map([['web', staleTo(digest('1'))], ['db', staleTo(digest('2'))]]) });
  t.teardown(() => h.close());
  const plan = (await (await post(`${h.url}/v1/plan?container=web`)).json()) as PlanBody;
  t.equal(plan.targeted, true);
  t.same(plan.steps.map((s) => s.container), ['web']);
  const mixed = await post(`${h.url}/v1/update?plan=${plan.plan_id}&container=db`);
  t.equal(mixed.status, 400);
  t.match(await mixed.json(), { error: /^invalid 'plan' parameter/ });
  t.equal((await post(`${h.url}/v1/update?plan=a&plan=b`)).status, 400, 'plan given twice');
  t.equal((await post(`${h.url}/v1/update?plan=${'x'.repeat(65)}`)).status, 400, 'an overlong id');
  const async = await post(`${h.url}/v1/update?plan=${plan.plan_id}&async=true`);
  t.equal(async.status, 202);
  t.match(await async.json(), { status: 'accepted', targeted: true });
});

t.test('both routes need the main token; the plan route exists only with the update endpoint', async (t) => {
  const h = await startApi({}, { targets: [target('web')] });
  t.teardown(() => h.close());
  t.equal((await fetch(`${h.url}/v1/plan`, { method: 'POST' })).status, 401);
  t.equal((await fetch(`${h.url}/v1/plan`, { method: 'POST', headers: bearer('wrong') })).status, 401);
  t.equal((await fetch(`${h.url}/v1/update?plan=x`, { method: 'POST' })).status, 401);
  const without = await startApi({ endpoints: ['check'] }, { targets: [target('web')] });
  t.teardown(() => without.close());
  t.equal((await post(`${without.url}/v1/plan`)).status, 404);
});
