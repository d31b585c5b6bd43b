// The exact plan's core logic (docs/plans.md) with stub taps: deciding runs every stage and applies nothing;
// applying replaces exactly the planned targets with exactly the planned candidates, skips what changed since,
// and answers a plan once. The real engine and registry prove the same end to end in test/e2e/plan.test.ts.
import t from 'tap';
import { createTidewatch, errors, FINDINGS, isTidewatchError, withFinding, type Staleness, type Target, type TidewatchPlugin } from '../../core/index.js';
import { fakeTarget } from '../helpers/targets.js';

const digest = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

/** The code the promise rejects with, or `resolved`. */
async function codeOf(pending: Promise<unknown>): Promise<string> {
  try {
    await pending;
    return 'resolved';
  } catch (err) {
    return isTidewatchError(err) ? err.code : String(err);
  }
}

interface World {
  targets: Target[];
  /** The digest the source answers for each stale target now. */
  latest: Map<string, string>;
  sourceAsked: string[];
  observed: string[];
  applied: { name: string; restartOnly: boolean; digest: string | undefined }[];
  gateKinds: string[];
}

function world(targets: Target[], latest: Record<string, number>): World {
  return {
    targets,
    latest: new Map(Object.entries(latest).map(([k, v]) => [k, digest(v)])),
    sourceAsked: [],
    observed: [],
    applied: [],
    gateKinds: [],
  };
}

function stubs(w: World, refuse: Record<string, string> = {}): TidewatchPlugin<object> {
  return {
    name: 'stub',
    apply(core) {
      core.hooks.discover.tapPromise('stub', async (found) => [...found, ...w.targets]);
      core.hooks.checkStaleness.tap({ name: 'observer', stage: -100 }, (target) => {
        w.observed.push(target.name);
        return undefined;
      });
      core.hooks.checkStaleness.tapPromise('stub', async (target): Promise<Staleness> => {
        w.sourceAsked.push(target.name);
        const latestDigest = w.latest.get(target.name);
        return latestDigest
          ? withFinding(withFinding({ source: 'registry', stale: true, currentDigest: digest(0), latestDigest, latestTag: '2.0.0' } as Staleness, FINDINGS.tags, { currentTag: '1.0.0' }), FINDINGS.version, '2.0.0')
          : { source: 'registry', stale: false };
      });
      core.hooks.gate.tapPromise('stub', async (target, _staleness, ctx) => {
        w.gateKinds.push(ctx.kind);
        const reason = refuse[target.name];
        return reason && _staleness.stale ? { reason, by: 'stub' } : undefined;
      });
      core.hooks.apply.tapPromise('stub', async (plan) => {
        w.applied.push({ name: plan.target.name, restartOnly: plan.restartOnly, digest: plan.staleness.latestDigest });
        return { target: plan.target, outcome: plan.restartOnly ? 'restarted' : 'updated', newImageId: 'sha256:new' };
      });
    },
  };
}

t.test('a plan decides what the update run would do, in waves, and applies nothing', async (t) => {
  // db ← app ← web (web depends on app, app on db); cache stale and alone; held refused by a gate;
  // sidecar is not stale but depends on db: a linked restart of db's step.
  const w = world(
    [
      fakeTarget('web', { dependsOn: ['app'] }),
      fakeTarget('app', { dependsOn: ['db'] }),
      fakeTarget('db'),
      fakeTarget('cache'),
      fakeTarget('held'),
      fakeTarget('sidecar', { dependsOn: ['db'] }),
    ],
    { web: 1, app: 2, db: 3, cache: 4, held: 5 },
  );
  const tw = await createTidewatch({ plugins: [stubs(w, { held: 'held by a person' })] });
  const plan = await tw.plan();
  t.same(w.applied, [], 'nothing applied');
  t.ok(w.gateKinds.length > 0 && w.gateKinds.every((k) => k === 'update'), 'gates judged as in an update run');
  t.same(
    plan.steps.map((s) => [s.container, s.wave]),
    [
      ['db', 1],
      ['cache', 1],
      ['app', 2],
      ['web', 3],
    ],
  );
  const db = plan.steps[0];
  t.same(db?.restarts, ['sidecar'], 'the linked restart is named on its step');
  t.same(db?.to, { image: '127.0.0.1:5101/demo/db:2.0.0', digest: digest(3), tag: '2.0.0', version: '2.0.0' });
  t.same(db?.from, { image: '127.0.0.1:5101/demo/db:latest', digest: digest(0) });
  t.same(plan.skipped, [{ container: 'held', reason: 'held by a person' }]);
  t.ok(plan.expiresAt.getTime() - plan.createdAt.getTime() >= 15 * 60_000 - 1000, 'default ttl 15 minutes');
});

t.test('applying: exactly the planned digests, sources not asked again, observers run, order by wave', async (t) => {
  const w = world([fakeTarget('app', { dependsOn: ['db'] }), fakeTarget('db'), fakeTarget('sidecar', { dependsOn: ['db'] })], { app: 1, db: 2 });
  const tw = await createTidewatch({ plugins: [stubs(w)] });
  const plan = await tw.plan();
  // A newer push after the plan: the source would now answer another digest.
  w.latest.set('db', digest(7));
  w.sourceAsked.length = 0;
  w.observed.length = 0;
  const applied = await tw.applyPlan(plan.planId, { trigger: 'api' });
  t.same(w.sourceAsked, [], 'no source was asked while applying');
  t.same(w.observed.sort(), ['app', 'db', 'sidecar'], 'the observers saw every target applied');
  t.same(w.applied, [
    { name: 'db', restartOnly: false, digest: digest(2) },
    { name: 'app', restartOnly: false, digest: digest(1) },
    { name: 'sidecar', restartOnly: true, digest: undefined },
  ]);
  t.equal(applied.planId, plan.planId);
  t.same(applied.steps.map((s) => [s.container, s.outcome]), [['db', 'updated'], ['app', 'updated']]);
  t.same(applied.summary, { scanned: 3, updated: 2, failed: 0, restarted: 1, skipped: 0 });
  t.equal(applied.checks.find((c) => c.target.name === 'db')?.staleness.latestDigest, digest(2), 'the report names the planned digest');
});

t.test('a target changed since the plan is skipped, and its linked restart with it', async (t) => {
  const w = world([fakeTarget('db'), fakeTarget('sidecar', { dependsOn: ['db'] }), fakeTarget('cache')], { db: 2, cache: 3 });
  const tw = await createTidewatch({ plugins: [stubs(w)] });
  const plan = await tw.plan();
  // db recreated (another id); cache now runs another image id.
  w.targets = [fakeTarget('db', { id: 'id-db-2' }), fakeTarget('sidecar', { dependsOn: ['db'] }), fakeTarget('cache', { imageId: digest(9) })];
  const applied = await tw.applyPlan(plan.planId);
  t.same(w.applied, [], 'nothing applied');
  t.same(applied.steps.map((s) => [s.container, s.outcome, s.reason]), [
    ['db', 'skipped', 'changed since plan'],
    ['cache', 'skipped', 'changed since plan'],
  ]);
  t.equal(applied.summary.skipped, 2);
});

t.test('a plan is applied once; an unknown or expired plan is not found', async (t) => {
  const w = world([fakeTarget('db')], { db: 2 });
  const tw = await createTidewatch({ plugins: [stubs(w)], planTtlMs: 300 });
  const plan = await tw.plan();
  await tw.applyPlan(plan.planId);
  t.equal(await codeOf(tw.applyPlan(plan.planId)), errors.planApplied.code);
  t.equal(await codeOf(tw.applyPlan('no-such-plan')), errors.planNotFound.code);
  const later = await tw.plan();
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.equal(await codeOf(tw.applyPlan(later.planId)), errors.planNotFound.code);
  t.same(w.applied.map((a) => a.name), ['db'], 'the expired plan applied nothing');
});

t.test('a targeted plan cancelled while it waits for the update lock may be applied later', async (t) => {
  const w = world([fakeTarget('db')], { db: 2 });
  const tw = await createTidewatch({ plugins: [stubs(w)] });
  const plan = await tw.plan({ filters: { containers: ['db'] } });
  const release = tw.lock.tryAcquire();
  const controller = new AbortController();
  const waiting = tw.applyPlan(plan.planId, { signal: controller.signal });
  controller.abort();
  t.equal(await codeOf(waiting), errors.aborted.code);
  release?.();
  const applied = await tw.applyPlan(plan.planId);
  t.equal(applied.steps[0]?.outcome, 'updated');
});

t.test('a full plan is refused while another update runs, and may be applied afterwards', async (t) => {
  const w = world([fakeTarget('db')], { db: 2 });
  const tw = await createTidewatch({ plugins: [stubs(w)] });
  const plan = await tw.plan();
  const release = tw.lock.tryAcquire();
  t.equal(await codeOf(tw.applyPlan(plan.planId)), errors.busy.code);
  release?.();
  t.equal((await tw.applyPlan(plan.planId)).steps[0]?.outcome, 'updated');
});

t.test('filters narrow a plan as they narrow an update run', async (t) => {
  const w = world([fakeTarget('db'), fakeTarget('cache')], { db: 2, cache: 3 });
  const tw = await createTidewatch({ plugins: [stubs(w)] });
  const plan = await tw.plan({ filters: { containers: ['cache'] } });
  t.equal(plan.targeted, true);
  t.same(plan.steps.map((s) => s.container), ['cache']);
  await tw.applyPlan(plan.planId);
  t.same(w.applied.map((a) => a.name), ['cache']);
});

t.test('a plugin pins a candidate for its own run and applies it through the plan (how approvals apply)', async (t) => {
  const w = world([fakeTarget('db'), fakeTarget('cache')], { db: 2, cache: 3 });
  // What an approvals plugin holds: its runs, each with the one digest a person approved.
  const pinned = new Map<string, string>();
  let pinner: { plan: (name: string, digest: string) => Promise<string>; apply: (id: string) => Promise<unknown> } | undefined;
  const approvals: TidewatchPlugin<object> = {
    name: 'approvals-like',
    apply(core) {
      core.hooks.checkStaleness.tap({ name: 'approvals-like', stage: -14 }, (target, ctx) => {
        const digest = pinned.get(ctx.runId);
        return digest === undefined ? undefined : { source: 'registry', stale: true, latestDigest: digest };
      });
      pinner = {
        plan: async (name, digest) => {
          const runId = `approval-${name}`;
          pinned.set(runId, digest);
          try {
            return (await core.plan({ filters: { containers: [name] }, runId, trigger: 'approval' })).planId;
          } finally {
            pinned.delete(runId);
          }
        },
        apply: (id) => core.applyPlan(id, { trigger: 'approval' }),
      };
    },
  };
  const tw = await createTidewatch({ plugins: [approvals, stubs(w)] });
  const planId = await pinner!.plan('db', digest(8));
  // The tag moves again before the approved plan is applied: still the approved digest.
  w.latest.set('db', digest(9));
  await pinner!.apply(planId);
  t.same(w.applied, [{ name: 'db', restartOnly: false, digest: digest(8) }], 'exactly the approved digest, only that container');
  t.notOk(w.sourceAsked.includes('db'), 'the registry source never answered for the pinned run');
  await tw.close();
});
