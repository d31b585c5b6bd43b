// Approvals and windows through the core with a stub runtime and source (docs/policies.md): which runs ask,
// which skip and why, what a decision changes, that approve applies exactly the approved digest (even after the
// source moved on), that a burst of approvals applies once, that a newer candidate supersedes, and that the
// ledger survives a restart of the store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  REGISTRY_PATH,
  createTidewatch,
  type ApprovalEntry,
  type Staleness,
  type Target,
  type Tidewatch,
  type TidewatchPlugin,
  type UpdatePlan,
} from '../../../core/index.js';
import { UPDATE_POLICIES } from '../../../contracts/index.js';
import { policiesPlugin } from '../../../plugins/policies/index.js';
import { statePlugin } from '../../../plugins/state/index.js';
import { asStaleness } from '../../helpers/staleness.js';
import { fakeTarget } from '../../helpers/targets.js';

interface World {
  latest: Map<string, Staleness>;
  applied: { name: string; digest: string | undefined; tag: string | undefined; restartOnly?: boolean }[];
}

const DIGEST = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

function target(name: string, labels: Record<string, string> = {}): Target {
  return fakeTarget(name, { runtime: 'stub', image: `127.0.0.1:5000/${name}:1.0.0`, imageId: `sha256:${name}`, labels });
}

function stub(world: World, targets: Target[]): TidewatchPlugin<object> {
  return {
    name: 'stub',
    apply(core) {
      core.hooks.discover.tapPromise('stub', async (found) => [...found, ...targets]);
      core.hooks.checkStaleness.tapPromise('stub', async (t) => world.latest.get(t.name) ?? { source: REGISTRY_PATH, stale: false });
      core.hooks.apply.tapPromise('stub', async (plan: UpdatePlan) => {
        if (plan.restartOnly) {
          world.applied.push({ name: plan.target.name, digest: undefined, tag: undefined, restartOnly: true });
          return { target: plan.target, outcome: 'restarted' };
        }
        world.applied.push({ name: plan.target.name, digest: plan.staleness.latestDigest, tag: plan.staleness.latestTag });
        return { target: plan.target, outcome: 'updated' };
      });
    },
  };
}

async function start(t: { teardown(fn: () => unknown): void }, world: World, targets: Target[], options: object, dataDir = ''): Promise<Tidewatch> {
  const tw = await createTidewatch({
    plugins: [{ plugin: statePlugin, options: { dataDir } }, stub(world, targets), { plugin: policiesPlugin, options }] as TidewatchPlugin<object>[],
  });
  t.teardown(() => tw.close());
  return tw;
}

const minor = (n: number, tag: string): Staleness => (asStaleness({
  source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(n), tagPolicy: 'minor', currentTag: '1.0.0', latestTag: tag, updateKind: 'minor',
}));

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

t.test('a minor update under --approval minor: asked once, skipped while pending, applied exactly once approved', async (t) => {
  const world: World = { latest: new Map([['web', minor(1, '1.1.0')]]), applied: [] };
  const tw = await start(t, world, [target('web'), target('db')], { approval: 'minor' });
  world.latest.set('db', asStaleness({ source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(2), updateKind: 'digest' }));
  const policies = tw.services.require(UPDATE_POLICIES);
  const events: ApprovalEntry[] = [];
  tw.hooks.event.tap('test', (e) => { if (e.type === 'approval') events.push(e.data.entry); });

  const first = await tw.update({ trigger: 'schedule' });
  t.same(world.applied.map((a) => a.name), ['db'], 'a digest update needs no approval under minor');
  t.match(first.skipped, [{ target: { name: 'web' }, reason: /^approval pending for 1\.1\.0: asked now/ }]);
  const [entry] = policies.approvals();
  t.match(entry, { container: 'web', latest_tag: '1.1.0', current_tag: '1.0.0', latest_digest: DIGEST(1), update_kind: 'minor', state: 'pending' });
  t.equal(events.length, 1, 'announced once');

  const second = await tw.update({ trigger: 'schedule' });
  t.match(second.skipped, [{ reason: /^approval pending for 1\.1\.0 since / }]);
  t.equal(policies.approvals().length, 1, 'not asked again');
  t.equal(events.length, 1, 'not announced again');

  // The tag moved on at the registry after the question was asked: approve applies what was asked about.
  world.latest.set('web', minor(3, '1.1.0'));
  const id = (entry as ApprovalEntry).id;
  const burst = await Promise.all(Array.from({ length: 8 }, () => policies.decide(id, 'approve', { by: 'api' })));
  t.equal(burst.filter((o) => o.status === 'decided').length, 1, 'one decision of eight');
  t.equal(burst.filter((o) => o.status === 'conflict').length, 7, 'the rest: no longer pending');
  await until(() => policies.approvals()[0]?.state === 'applied', 'applied');
  t.same(world.applied.filter((a) => a.name === 'web'), [{ name: 'web', digest: DIGEST(1), tag: '1.1.0' }], 'exactly the approved digest, once');
  t.match(policies.approvals()[0], { state: 'applied', decided_by: 'api' });
  t.match(await tw.services.require((await import('../../../contracts/index.js')).STATE_STORE).audit({ container: 'web' }), [
    { action: 'approve', outcome: 'approved', to: { digest: DIGEST(1) } },
    { action: 'update', outcome: 'updated' },
  ]);
});

t.test('a person\'s targeted update is consent; reject is final for that digest; a newer candidate asks again', async (t) => {
  const world: World = { latest: new Map([['web', minor(1, '1.1.0')]]), applied: [] };
  const tw = await start(t, world, [target('web', { 'tidewatch.approval': 'minor' })], {});
  const policies = tw.services.require(UPDATE_POLICIES);
  await tw.update({ trigger: 'schedule' });
  const asked = policies.approvals()[0] as ApprovalEntry;
  t.match(asked, { state: 'pending' }, 'the label asks where the global policy is none');
  t.match(await policies.decide(asked.id, 'reject', { by: 'dashboard' }), { status: 'decided', entry: { state: 'rejected', decided_by: 'dashboard' } });
  t.match((await tw.update({ trigger: 'schedule' })).skipped, [{ reason: /^approval rejected for 1\.1\.0/ }]);
  t.same(world.applied, [], 'a rejected candidate is not applied by a run');
  t.equal(policies.statusOf(target('web'), true).approval, 'rejected');
  t.match(await policies.decide(asked.id, 'approve', { by: 'api' }), { status: 'conflict', reason: /rejected, no longer pending/ });
  t.equal((await policies.decide('nope', 'approve', { by: 'api' })).status, 'unknown');

  world.latest.set('web', minor(2, '1.2.0'));
  await tw.update({ trigger: 'webhook:reg' });
  t.match(policies.approvals().at(-1), { state: 'pending', latest_tag: '1.2.0' }, 'a newer candidate asks again');

  world.latest.set('web', minor(3, '1.3.0'));
  await tw.update({ trigger: 'schedule' });
  t.same(policies.approvals().map((e) => `${e.latest_tag}:${e.state}`), ['1.1.0:rejected', '1.2.0:superseded', '1.3.0:pending']);

  const report = await tw.update({ trigger: 'api', filters: { containers: ['web'] } });
  t.equal(report.summary.updated, 1, 'a person\'s targeted update applies without asking');
  t.match(policies.approvals().at(-1), { latest_tag: '1.3.0', state: 'applied' });
});

t.test('defer asks again after its delay; the ledger survives a restart', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-approvals-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const world: World = { latest: new Map([['web', minor(1, '1.1.0')]]), applied: [] };
  const first = await start(t, world, [target('web')], { approval: 'all' }, dir);
  await first.update({ trigger: 'schedule' });
  const policies = first.services.require(UPDATE_POLICIES);
  const id = (policies.approvals()[0] as ApprovalEntry).id;
  const deferred = await policies.decide(id, 'defer', { by: 'api', deferMs: 1 });
  t.match(deferred, { status: 'decided', entry: { state: 'deferred', deferred_until: String } });
  await first.close();

  const second = await start(t, world, [target('web')], { approval: 'all' }, dir);
  const again = second.services.require(UPDATE_POLICIES);
  t.match(again.approvals(), [{ id, state: 'deferred' }], 'kept across a restart');
  await new Promise((r) => setTimeout(r, 5));
  t.match((await second.update({ trigger: 'schedule' })).skipped, [{ reason: /again after its deferral/ }]);
  t.match(again.approvals(), [{ id, state: 'pending' }], 'asked again after the delay');
  t.same(world.applied, []);
});

t.test('windows: automatic runs wait, a targeted person applies, next_window says when', async (t) => {
  const world: World = { latest: new Map([['web', { source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(1) }]]), applied: [] };
  const now = new Date();
  // A window that opened 2 hours ago for 1 hour (closed now), daily.
  const opened = new Date(now.getTime() - 2 * 3_600_000);
  const closed = `${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *;1h;UTC`;
  const tw = await start(t, world, [target('web'), target('open', { 'tidewatch.update-window': `${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *;3h;UTC` })], { updateWindows: [closed] });
  world.latest.set('open', { source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(2) });
  for (const trigger of ['schedule', 'startup', 'webhook:reg']) {
    const report = await tw.update({ trigger });
    t.match(report.skipped, [{ target: { name: 'web' }, reason: /^window closed until \d{4}-/ }], `${trigger}: deferred`);
  }
  t.match((await tw.update({ trigger: 'api' })).skipped, [{ reason: /^window / }], 'an untargeted API update waits too');
  t.same([...new Set(world.applied.map((a) => a.name))], ['open'], 'the label\'s window is open: applied');
  const status = tw.services.require(UPDATE_POLICIES).statusOf(target('web'), true);
  t.equal(status.nextWindow?.getTime(), Math.floor(opened.getTime() / 60_000) * 60_000 + 24 * 3_600_000, 'next opening: the same time tomorrow');
  t.same(tw.services.require(UPDATE_POLICIES).statusOf(target('web'), false), {}, 'no update available: no next_window');
  t.equal((await tw.check()).results.length, 2, 'checks are never limited');
  const targeted = await tw.update({ trigger: 'api', filters: { containers: ['web'] } });
  t.equal(targeted.summary.updated, 1, 'a person\'s targeted update applies at once');
});

t.test('a bad window label never widens into any time', async (t) => {
  const world: World = { latest: new Map([['web', { source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(1) }]]), applied: [] };
  const tw = await start(t, world, [target('web', { 'com.centurylinklabs.watchtower.update-window': 'at night' })], {});
  t.match((await tw.update({ trigger: 'schedule' })).skipped, [{ reason: /^window label cannot be read \("at night" is not CRON;DURATION/ }]);
  t.same(world.applied, []);
});

t.test('a dependent whose own window is closed still restarts with its parent, on its own image', async (t) => {
  const world: World = { latest: new Map(), applied: [] };
  const vpn = target('vpn', { 'tidewatch.update-window': 'always' });
  const app = { ...target('app'), dependsOn: ['vpn'] };
  world.latest.set('vpn', { source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(1) });
  world.latest.set('app', { source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(2) });
  const tw = await start(t, world, [vpn, app], { updateWindows: ['0 0 1 1 *;1m;UTC'] });
  const report = await tw.update({ trigger: 'schedule' });
  t.same(world.applied, [
    { name: 'vpn', digest: DIGEST(1), tag: undefined },
    { name: 'app', digest: undefined, tag: undefined, restartOnly: true },
  ], 'the parent updated, the dependent restarted on its current image');
  t.match(report.summary, { updated: 1, restarted: 1 });
});

t.test('with lower candidates: a minor passes under --approval major, one question per run, a closed window looks at no other', async (t) => {
  const asked: string[] = [];
  const major = (next: () => Promise<Staleness | undefined>): Staleness => (asStaleness({
    source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(2), tagPolicy: 'major', currentTag: '1.4.2', latestTag: '2.0.0', updateKind: 'major',
    nextCandidate: async () => { asked.push('1.5.0'); return next(); },
  }));
  const minorOne: Staleness = asStaleness({ source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(1), tagPolicy: 'major', currentTag: '1.4.2', latestTag: '1.5.0', updateKind: 'minor' });
  const world: World = { latest: new Map([['web', major(async () => minorOne)]]), applied: [] };
  const shut = target('shut', { 'tidewatch.update-window': '0 0 1 1 *;1m;UTC', 'tidewatch.approval': 'none' });
  const tw = await start(t, world, [target('web'), target('db', { 'tidewatch.approval': 'all' }), shut], { approval: 'major' });
  world.latest.set('db', major(async () => minorOne));
  world.latest.set('shut', major(async () => minorOne));
  const report = await tw.update({ trigger: 'schedule' });
  t.same(world.applied.map((a) => `${a.name}:${a.tag}`), ['web:1.5.0'], 'the minor below a pending major applies on its own');
  const policies = tw.services.require(UPDATE_POLICIES);
  t.same(policies.approvals().map((e) => `${e.container}:${e.latest_tag}:${e.state}`).sort(), ['db:2.0.0:pending', 'web:2.0.0:pending'], 'one question each, about the newest, still open after the lower one applied');
  t.match(report.skipped.find((s) => s.target.name === 'db')?.reason, /newest candidate only/);
  t.match(report.skipped.find((s) => s.target.name === 'shut')?.reason, /^window closed until/);
  t.equal(asked.length, 2, 'web and db looked lower; the closed window of shut asked for no other candidate');
});

t.test('a question a run asked stays open when that run applied a lower candidate, and is not asked again', async (t) => {
  const lower: Staleness = asStaleness({ source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(1), tagPolicy: 'major', currentTag: '1.4.2', latestTag: '1.5.0', updateKind: 'minor' });
  const top: Staleness = asStaleness({ source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(2), tagPolicy: 'major', currentTag: '1.4.2', latestTag: '2.0.0', updateKind: 'major', nextCandidate: async () => lower });
  const world: World = { latest: new Map([['web', top]]), applied: [] };
  const tw = await start(t, world, [target('web')], { approval: 'major' });
  const events: string[] = [];
  tw.hooks.event.tap('test', (e) => { if (e.type === 'approval') events.push(`${e.data.entry.latest_tag}:${e.data.entry.state}`); });
  await tw.update({ trigger: 'schedule' });
  world.latest.set('web', asStaleness({ ...top, currentTag: '1.5.0', nextCandidate: undefined }));
  await tw.update({ trigger: 'schedule' });
  t.same(events, ['2.0.0:pending'], 'asked once; never superseded by the lower update');
});
