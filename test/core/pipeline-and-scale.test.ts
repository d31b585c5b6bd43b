// The check pipeline (checks start while discovery is still going), --update-concurrency (unrelated
// chains side by side, a chain always in order), and runs of 10 000 targets in linear time.
import t from 'tap';
import { createTidewatch, type Target, type TidewatchPlugin } from '../../core/index.js';
import { orderByDependencies, transitiveDependents } from '../../core/dependency-order.js';
import { fakeTarget } from '../helpers/targets.js';

function stalePlugin(targets: Target[], opts: { announce?: boolean; applyMs?: number; log?: string[] } = {}): TidewatchPlugin<object> {
  return {
    name: 'fake',
    apply(core) {
      core.hooks.discover.tapPromise('fake', async (found, ctx) => {
        if (opts.announce) {
          for (const target of targets) {
            ctx.announce([target]);
            // Discovery still going: the check of what was announced must already have started.
            await new Promise((r) => setImmediate(r));
          }
        }
        opts.log?.push('discover done');
        return [...found, ...targets];
      });
      core.hooks.select.tap('fake', (list) => list.filter((x) => !x.name.startsWith('skip')));
      core.hooks.checkStaleness.tapPromise('fake', async (target) => {
        opts.log?.push(`check ${target.name}`);
        return { source: 'registry', stale: true };
      });
      core.hooks.apply.tapPromise('fake', async (plan) => {
        opts.log?.push(`start ${plan.target.name}`);
        if (opts.applyMs) await new Promise((r) => setTimeout(r, opts.applyMs));
        opts.log?.push(`end ${plan.target.name}`);
        return { target: plan.target, outcome: plan.restartOnly ? 'restarted' : 'updated' };
      });
    },
  };
}

t.test('announced targets are selected and checked before discovery returns; results keep discovery order', async (t) => {
  const log: string[] = [];
  const targets = ['a', 'skip-b', 'c'].map((n) => fakeTarget(n));
  const tw = await createTidewatch({ plugins: [stalePlugin(targets, { announce: true, log })] });
  const report = await tw.check();
  t.ok(log.indexOf('check a') < log.indexOf('discover done'), 'a was checked while discovery went on');
  t.notOk(log.includes('check skip-b'), 'selection applies to announced targets too');
  t.same(report.results.map((r) => r.target.name), ['a', 'c']);
  t.equal(log.filter((l) => l === 'check a').length, 1, 'each target checked once');
});

t.test('--update-concurrency: unrelated chains overlap, a chain stays in dependency order', async (t) => {
  const targets = [
    fakeTarget('db'),
    fakeTarget('web', { dependsOn: ['db'] }),
    fakeTarget('x'),
    fakeTarget('y'),
  ];
  const sequential: string[] = [];
  const one = await createTidewatch({ plugins: [stalePlugin(targets, { applyMs: 20, log: sequential })] });
  await one.update();
  const applies = (log: string[]) => log.filter((l) => l.startsWith('start') || l.startsWith('end'));
  t.same(applies(sequential), ['start db', 'end db', 'start x', 'end x', 'start y', 'end y', 'start web', 'end web'], 'default: one at a time');

  const parallel: string[] = [];
  const four = await createTidewatch({ updateConcurrency: 4, plugins: [stalePlugin(targets, { applyMs: 20, log: parallel })] });
  const report = await four.update();
  const seen = applies(parallel);
  t.ok(seen.indexOf('start x') < seen.indexOf('end db'), 'x started while db was being replaced');
  t.ok(seen.indexOf('end db') < seen.indexOf('start web'), 'web only after its dependency');
  t.same(report.results.map((r) => r.target.name), ['db', 'x', 'y', 'web'], 'results in plan order');
  t.equal(report.summary.updated, 4);
});

t.test('10 000 targets: ordering, dependents and a whole update run stay linear', async (t) => {
  const N = 10_000;
  // Hubs with many dependents and long-ish chains: the shapes a quadratic step would choke on.
  const targets = Array.from({ length: N }, (_, i) =>
    fakeTarget(`t${i}`, { dependsOn: i % 100 === 0 ? [] : [`t${i - (i % 100)}`] }),
  );
  let started = performance.now();
  const { ordered, cyclic } = orderByDependencies(targets);
  t.equal(ordered.length, N);
  t.equal(cyclic.length, 0);
  t.equal(transitiveDependents(targets, new Set(['t0'])).size, 99);
  const orderMs = performance.now() - started;

  started = performance.now();
  const independent = Array.from({ length: N }, (_, i) => fakeTarget(`u${i}`));
  const tw = await createTidewatch({ updateConcurrency: 4, plugins: [stalePlugin(independent)] });
  const report = await tw.update();
  t.equal(report.summary.updated, N);
  const check = await tw.check();
  t.equal(check.results.length, N);
  const runMs = performance.now() - started;
  t.comment(`ordering ${orderMs.toFixed(0)} ms, update + check run of ${N}: ${runMs.toFixed(0)} ms`);
  // Quadratic steps take minutes at this size; linear ones well under a second each (generous bounds for a shared machine).
  t.ok(orderMs < 5_000, `ordering took ${orderMs.toFixed(0)} ms`);
  t.ok(runMs < 20_000, `the runs took ${runMs.toFixed(0)} ms`);
});
