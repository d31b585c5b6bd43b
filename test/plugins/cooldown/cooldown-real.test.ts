// The cooldown against the real registry: crafted image configs with a recent or an old `created`,
// single-platform and behind an index, aged through the registry plugin (no pull).
import t from 'tap';
import { createTidewatch, type Target, type TidewatchPlugin } from '../../../core/index.js';
import { cooldownPlugin } from '../../../plugins/cooldown/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { requireEnv } from '../../helpers/env.js';
import { pushImage, testPrefix } from '../../helpers/images.js';
import { emptyConfigDir, target } from '../registry/harness.js';

const prefix = testPrefix('cooldown');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

t.test('defers an image created recently, lets an old one through', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const now = Date.now();
  const targets: Target[] = [];
  const cases = [
    { name: 'recent', created: new Date(now - 2 * HOUR), index: false },
    { name: 'old', created: new Date('2020-01-01T00:00:00Z'), index: false },
    { name: 'recent-index', created: new Date(now - 2 * HOUR), index: true },
    { name: 'old-index', created: new Date('2020-01-01T00:00:00Z'), index: true },
    { name: 'recent-no-cooldown', created: new Date(now - 2 * HOUR), index: false, labels: { 'tidewatch.cooldown-delay': '0' } },
  ];
  for (const c of cases) {
    const repo = `${prefix}/${c.name}`;
    const running = await pushImage({ registry: env.registry, repo, marker: 'running', created: '2019-01-01T00:00:00Z' });
    await pushImage({ registry: env.registry, repo, marker: 'new', created: c.created, index: c.index });
    targets.push({ ...target(c.name, running.ref, [running.digestRef]), labels: c.labels ?? {} });
  }
  const applied: string[] = [];
  const stub: TidewatchPlugin<object> = {
    name: 'stub-runtime',
    apply(core) {
      core.hooks.discover.tapPromise('stub-runtime', async (found) => [...found, ...targets]);
      core.hooks.apply.tapPromise('stub-runtime', async (plan) => {
        applied.push(plan.target.name);
        return { target: plan.target, outcome: 'updated' };
      });
    },
  };
  const tw = await createTidewatch({
    plugins: [
      stub,
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
      { plugin: cooldownPlugin, options: { delayMs: DAY } },
    ] as TidewatchPlugin<object>[],
  });
  t.teardown(() => tw.close());

  const check = await tw.check();
  t.ok(check.results.every((r) => r.staleness.stale && !r.staleness.error), 'the check sees every update, cooldown or not');

  const report = await tw.update();
  t.same(applied.sort(), ['old', 'old-index', 'recent-no-cooldown']);
  const skipped = Object.fromEntries(report.skipped.map((s) => [s.target.name, s.reason]));
  t.match(skipped['recent'], /^cooldown: image created 2h\w* ago, delay 1d, eligible in 2[12]h/);
  t.match(skipped['recent-index'], /^cooldown: image created 2h\w* ago/);
  t.equal(report.summary.skipped, 2);
  t.equal(report.summary.updated, 3);
});
