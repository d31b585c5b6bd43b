// Orchestration of check and update runs, with stub taps: the real plugins are tested against the
// real engine and registry elsewhere; here the subject is the core's own logic.
import t from 'tap';
import {
  createTidewatch,
  definePlugin,
  errors,
  option,
  isTidewatchError,
  type ApplyResult,
  type Staleness,
  type Target,
  type TidewatchEvent,
  type TidewatchPlugin,
} from '../../core/index.js';
import { fakeTarget } from '../helpers/targets.js';
import { memoryLogger } from '../helpers/memory-logger.js';

function discoverPlugin(targets: Target[]): TidewatchPlugin<object> {
  return {
    name: 'fake-runtime',
    apply(core) {
      core.hooks.discover.tapPromise('fake-runtime', async (found) => [...found, ...targets]);
    },
  };
}

function stalePlugin(stale: Set<string>, seen: string[] = []): TidewatchPlugin<object> {
  return {
    name: 'fake-source',
    apply(core) {
      core.hooks.checkStaleness.tapPromise('fake-source', async (target) => {
        seen.push(target.name);
        return { source: 'registry', stale: stale.has(target.name) };
      });
    },
  };
}

function recordingApplier(applied: string[], outcome: (t: Target) => ApplyResult['outcome'] = () => 'updated'): TidewatchPlugin<object> {
  return {
    name: 'fake-applier',
    apply(core) {
      core.hooks.apply.tapPromise('fake-applier', async (plan) => {
        applied.push(`${plan.restartOnly ? 'restart' : 'update'}:${plan.target.name}`);
        const result = outcome(plan.target);
        return result === 'failed'
          ? { target: plan.target, outcome: result, error: 'boom', rolledBack: true }
          : { target: plan.target, outcome: plan.restartOnly ? 'restarted' : result, newImageId: 'sha256:new' };
      });
    },
  };
}

function eventLog(events: TidewatchEvent[]): TidewatchPlugin<object> {
  return { name: 'events', apply: (core) => core.hooks.event.tap('events', (e) => void events.push(e)) };
}

t.test('check: the first source that answers wins (the watch split)', async (t) => {
  const targets = [fakeTarget('gitty', { labels: { 'tidewatch.git.repo': 'http://127.0.0.1/x.git' } }), fakeTarget('plain')];
  const registrySeen: string[] = [];
  const claimer: TidewatchPlugin<object> = {
    name: 'git-like',
    apply(core) {
      core.hooks.checkStaleness.tapPromise({ name: 'git-like', stage: -10 }, async (target) =>
        target.labels['tidewatch.git.repo'] ? { source: 'git', stale: true } : undefined,
      );
    },
  };
  const tw = await createTidewatch({ plugins: [discoverPlugin(targets), stalePlugin(new Set(), registrySeen), claimer] });
  const report = await tw.check();
  t.same(report.results.map((r) => [r.target.name, r.staleness.source, r.staleness.stale]), [
    ['gitty', 'git', true],
    ['plain', 'registry', false],
  ]);
  t.same(registrySeen, ['plain'], 'the registry source never saw the claimed target');
});

t.test('check: a throwing source fails that target only, naming the plugin', async (t) => {
  const thrower: TidewatchPlugin<object> = {
    name: 'flaky',
    apply(core) {
      core.hooks.checkStaleness.tapPromise('flaky', async (target) => {
        if (target.name === 'bad') throw new Error('registry on fire');
        return { source: 'registry', stale: false };
      });
    },
  };
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({ plugins: [discoverPlugin([fakeTarget('bad'), fakeTarget('good')]), thrower, eventLog(events)] });
  const report = await tw.check();
  const bad = report.results.find((r) => r.target.name === 'bad')?.staleness as Staleness;
  t.match(bad.error, /plugin flaky failed in checkStaleness: registry on fire/);
  t.equal(report.results.find((r) => r.target.name === 'good')?.staleness.error, undefined);
  const completed = events.find((e) => e.type === 'scan_completed');
  t.same(completed?.data, { run_id: report.runId, scanned: 2, updated: 0, failed: 1 });
});

t.test('check: a target no source claims is an error, never "up to date"', async (t) => {
  const tw = await createTidewatch({ plugins: [discoverPlugin([fakeTarget('orphan')])] });
  const [result] = (await tw.check()).results;
  t.match(result?.staleness.error, /no staleness source/);
});

t.test('check: bounded concurrency and one computation per memo key', async (t) => {
  const targets = Array.from({ length: 30 }, (_, i) => fakeTarget(`c${i}`, { image: `img${i % 3}` }));
  let inFlight = 0;
  let peak = 0;
  let computed = 0;
  const source: TidewatchPlugin<object> = {
    name: 'slow',
    apply(core) {
      core.hooks.checkStaleness.tapPromise('slow', async (target, ctx) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        const digest = await ctx.memo(target.image, async () => {
          computed++;
          return `digest-of-${target.image}`;
        });
        inFlight--;
        return { source: 'registry', stale: false, latestDigest: digest };
      });
    },
  };
  const tw = await createTidewatch({ plugins: [discoverPlugin(targets), source], checkConcurrency: 4 });
  const report = await tw.check();
  t.equal(report.results.length, 30);
  t.equal(peak, 4, 'never more than the bound in flight');
  t.equal(computed, 3, 'one computation per distinct image');
});

t.test('update: gates, report-only, failures, restarts of dependents, in dependency order', async (t) => {
  const targets = [
    fakeTarget('app', { dependsOn: ['api'] }),
    fakeTarget('api', { dependsOn: ['db'] }),
    fakeTarget('db'),
    fakeTarget('young'),
    fakeTarget('watched'),
    fakeTarget('broken'),
    fakeTarget('fresh'),
  ];
  const gate: TidewatchPlugin<object> = {
    name: 'gates',
    apply(core) {
      core.hooks.gate.tapPromise('gates', async (target) => {
        if (target.name === 'young') return { reason: 'cooldown: 2h left', by: 'gates' };
        if (target.name === 'watched') return { reason: 'monitor-only', reportOnly: true };
        return undefined;
      });
    },
  };
  const applied: string[] = [];
  const events: TidewatchEvent[] = [];
  const logger = memoryLogger();
  const tw = await createTidewatch({
    logger,
    plugins: [
      discoverPlugin(targets),
      stalePlugin(new Set(['db', 'young', 'watched', 'broken'])),
      gate,
      recordingApplier(applied, (target) => (target.name === 'broken' ? 'failed' : 'updated')),
      eventLog(events),
    ],
  });
  const report = await tw.update();
  t.same(applied, ['update:db', 'update:broken', 'restart:api', 'restart:app']);
  t.same(report.summary, { scanned: 6, updated: 1, failed: 1, restarted: 2, skipped: 1 });
  t.same(report.skipped.map((s) => [s.target.name, s.reason]), [['young', 'cooldown: 2h left']]);
  const types = events.map((e) => e.type);
  t.same(types, ['scan_started', 'candidates_refused', 'update_skipped', 'update_started', 'update_completed', 'update_started', 'update_failed', 'run_report', 'scan_completed']);
  // The refused candidate is counted for the metrics (docs/interface.md#metrics): by gate, with its code when it gave one.
  t.match(events.find((e) => e.type === 'candidates_refused')?.data, { run_id: report.runId, container: 'young', refusals: [{}] });
  // A deferred target says why (docs/state.md#holds); monitor-only ('watched') is only reported.
  t.match(events.find((e) => e.type === 'update_skipped')?.data, { run_id: report.runId, container: 'young', reason: 'cooldown: 2h left', trigger: 'embed' });
  t.match(logger.lines.filter((l) => l.msg === 'update skipped').map((l) => l.obj), [{ container: 'young', reason: 'cooldown: 2h left' }]);
  t.match(logger.lines.filter((l) => l.msg === 'container updated').map((l) => [l.level, l.obj['container']]), [['info', 'db']], 'one info line per updated container');
  const runReport = events.find((e) => e.type === 'run_report');
  t.match(runReport?.data, { run_id: report.runId, kind: 'update', report: { summary: report.summary } }, 'the whole report, before scan_completed');
  if (runReport?.type === 'run_report' && runReport.data.kind === 'update') {
    t.equal(runReport.data.report.checks.length, targets.length, 'every check of the run is in it');
  }
  const failed = events.find((e) => e.type === 'update_failed');
  t.same(failed?.data, { run_id: report.runId, container: 'broken', image: targets[5]?.image, error: 'boom', rolled_back: true, trigger: 'embed' });
  t.ok(events.every((e) => 'run_id' in e.data && e.data.run_id === report.runId), 'every event carries the run id');
  t.equal(tw.history.entries().at(-1)?.runId, report.runId);
});

t.test('update: the plan names dependents in stop order', async (t) => {
  const targets = [fakeTarget('db'), fakeTarget('api', { dependsOn: ['db'] }), fakeTarget('app', { dependsOn: ['api'] })];
  const dependents: string[][] = [];
  const applier: TidewatchPlugin<object> = {
    name: 'rec',
    apply(core) {
      core.hooks.apply.tapPromise('rec', async (plan) => {
        dependents.push(plan.dependents.map((d) => d.name));
        return { target: plan.target, outcome: plan.restartOnly ? 'restarted' : 'updated' };
      });
    },
  };
  const tw = await createTidewatch({ plugins: [discoverPlugin(targets), stalePlugin(new Set(['db'])), applier] });
  await tw.update();
  t.same(dependents, [['app', 'api'], ['app'], []]);
});

t.test('update: a dependency cycle is skipped with a reason', async (t) => {
  const targets = [fakeTarget('a', { dependsOn: ['b'] }), fakeTarget('b', { dependsOn: ['a'] })];
  const applied: string[] = [];
  const tw = await createTidewatch({ plugins: [discoverPlugin(targets), stalePlugin(new Set(['a'])), recordingApplier(applied)] });
  const report = await tw.update();
  t.same(applied, []);
  t.same(report.skipped.map((s) => [s.target.name, s.reason]), [['a', 'dependency cycle'], ['b', 'dependency cycle']]);
});

t.test('update: no applier for a stale target is a failure', async (t) => {
  const tw = await createTidewatch({ plugins: [discoverPlugin([fakeTarget('x')]), stalePlugin(new Set(['x']))] });
  const report = await tw.update();
  t.equal(report.summary.failed, 1);
  t.match(report.results[0]?.error, /no plugin applies updates to x/);
});

t.test('update lock: full run refused while busy, targeted run waits', async (t) => {
  let releaseApply: () => void = () => undefined;
  const applyGate = new Promise<void>((r) => (releaseApply = r));
  const slowApplier: TidewatchPlugin<object> = {
    name: 'slow',
    apply(core) {
      core.hooks.apply.tapPromise('slow', async (plan) => {
        await applyGate;
        return { target: plan.target, outcome: 'updated' };
      });
    },
  };
  const tw = await createTidewatch({ plugins: [discoverPlugin([fakeTarget('x'), fakeTarget('y')]), stalePlugin(new Set(['x'])), slowApplier] });
  const first = tw.update();
  await new Promise((r) => setTimeout(r, 10));
  const refused = await tw.update().catch((e: unknown) => e);
  t.ok(isTidewatchError(refused, errors.busy), 'a second full run is refused at once');
  let targetedDone = false;
  const targeted = tw.update({ filters: { containers: ['y'] } }).then((r) => {
    targetedDone = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 10));
  t.notOk(targetedDone, 'the targeted run waits for the lock');
  releaseApply();
  t.equal((await first).summary.updated, 1);
  const second = await targeted;
  t.ok(second.targeted);
  t.equal(second.summary.scanned, 1, 'only the targeted container');
});

t.test('update: cancellation between targets; scan_failed names the reason', async (t) => {
  const controller = new AbortController();
  const applied: string[] = [];
  const applier: TidewatchPlugin<object> = {
    name: 'cancelling',
    apply(core) {
      core.hooks.apply.tapPromise('cancelling', async (plan) => {
        applied.push(plan.target.name);
        controller.abort(errors.timeout('update', '1s'));
        return { target: plan.target, outcome: 'updated' };
      });
    },
  };
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({
    plugins: [discoverPlugin([fakeTarget('a'), fakeTarget('b')]), stalePlugin(new Set(['a', 'b'])), applier, eventLog(events)],
  });
  const err = await tw.update({ signal: controller.signal }).catch((e: unknown) => e);
  t.ok(isTidewatchError(err, errors.timeout));
  t.same(applied, ['a'], 'the replacement under way finished; the next never started');
  t.match(events.at(-1), { type: 'scan_failed', data: { error: 'update timed out after 1s' } });
  t.notOk(tw.lock.busy, 'the lock was released');
});

t.test('plugins: options are validated against the declarations before apply', async (t) => {
  const plugin = definePlugin({
    name: 'picky',
    options: { level: option.integer({ flag: 'picky-level', min: 1, default: 3, group: 'Test', description: 'A level.' }) },
    apply(core, options) {
      core.logger.info({ level: options.level }, 'applied');
      seen.push(options.level);
    },
  });
  const seen: number[] = [];
  await createTidewatch({ plugins: [{ plugin }] });
  t.same(seen, [3], 'defaults filled in');
  const err = await createTidewatch({ plugins: [{ plugin, options: { level: 0 } }] }).catch((e: unknown) => e);
  t.ok(isTidewatchError(err, errors.pluginOptions));
  t.match((err as Error).message, /invalid options for plugin picky: level must be >= 1/);
});

t.test('event subscribers cannot break a run or each other', async (t) => {
  const events: TidewatchEvent[] = [];
  const thrower: TidewatchPlugin<object> = {
    name: 'bad-subscriber',
    apply: (core) => core.hooks.event.tap('bad-subscriber', () => {
      throw new Error('nope');
    }),
  };
  const tw = await createTidewatch({ plugins: [discoverPlugin([fakeTarget('x')]), stalePlugin(new Set()), thrower, eventLog(events)] });
  await tw.check();
  t.same(events.map((e) => e.type), ['scan_started', 'run_report', 'scan_completed']);
});

t.test('close runs the registered handlers in reverse order', async (t) => {
  const order: string[] = [];
  const tw = await createTidewatch({
    plugins: [
      { name: 'a', apply: (core) => core.onClose(() => void order.push('a')) },
      { name: 'b', apply: (core) => core.onClose(async () => void order.push('b')) },
    ],
  });
  await tw.close();
  t.same(order, ['b', 'a']);
  t.same(tw.plugins, ['a', 'b']);
});

t.test('update: the same name on two engines is two targets, each applied once (docs/hosts.md)', async (t) => {
  const targets = [
    fakeTarget('web', { id: 'a-web', host: 'unix:///a.sock' }),
    fakeTarget('web', { id: 'b-web', host: 'tcp://127.0.0.1:2376' }),
    fakeTarget('db', { id: 'b-db', host: 'tcp://127.0.0.1:2376', dependsOn: ['web'] }),
  ];
  const applied: string[] = [];
  const applier: TidewatchPlugin<object> = {
    name: 'rec',
    apply(core) {
      core.hooks.apply.tapPromise('rec', async (plan) => {
        applied.push(`${plan.restartOnly ? 'restart' : 'update'}:${plan.target.id}`);
        return { target: plan.target, outcome: plan.restartOnly ? 'restarted' : 'updated' };
      });
    },
  };
  const tw = await createTidewatch({ plugins: [discoverPlugin(targets), stalePlugin(new Set(['web'])), applier] });
  const report = await tw.update();
  t.same(applied, ['update:a-web', 'update:b-web', 'restart:b-db'], 'db depends on the web of its own engine only');
  t.match(report.summary, { updated: 2, restarted: 1 });
  const filtered = await tw.check({ filters: { hosts: ['tcp://127.0.0.1:2376'] } });
  t.same(filtered.results.map((r) => r.target.id), ['b-web', 'b-db'], 'a host filter keeps that engine\'s targets');
});
