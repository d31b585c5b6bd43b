// A run applying a plan asks no gate (docs/plans.md#applying), where the state plugin used to learn each candidate:
// its replacements are audited all the same, with the planned digest (docs/state.md#the-audit-trail).
import t from 'tap';
import { createTidewatch, type TidewatchPlugin } from '../../../core/index.js';
import { STATE_STORE } from '../../../contracts/index.js';
import { statePlugin } from '../../../plugins/state/index.js';
import { fakeTarget } from '../../helpers/targets.js';

const digest = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

t.test("a plan's replacement is in the audit trail with the planned digest", async (t) => {
  let latest = digest(2);
  const stub: TidewatchPlugin<object> = {
    name: 'stub',
    apply(core) {
      core.hooks.discover.tapPromise('stub', async (found) => [...found, fakeTarget('db')]);
      core.hooks.checkStaleness.tapPromise('stub', async () => ({ source: 'registry', stale: true, latestDigest: latest }));
      core.hooks.apply.tapPromise('stub', async (plan) => ({ target: plan.target, outcome: 'updated', newImageId: 'sha256:new' }));
    },
  };
  const tw = await createTidewatch({ plugins: [{ plugin: statePlugin, options: { dataDir: '' } }, stub] as TidewatchPlugin<object>[] });
  t.teardown(() => tw.close());
  const plan = await tw.plan();
  latest = digest(7);
  await tw.applyPlan(plan.planId, { trigger: 'api' });
  const audit = await tw.services.require(STATE_STORE).audit({ container: 'db' });
  t.match(audit, [{ action: 'update', outcome: 'updated', trigger: 'api', to: { digest: digest(2) } }]);
});
