// Approvals kept by name by an earlier version (docs/policies.md#whose-approval-it-is): at the next run each
// goes to the container of that name whose last recorded check found exactly that candidate, and stays as it
// was (pending here); one that no check ties to its container is superseded with the reason, so that a
// container someone else created under the name never inherits it. Through the core with a stub runtime.
import t from 'tap';
import {
  REGISTRY_PATH,
  createTidewatch,
  type ApprovalEntry,
  type Target,
  type TidewatchPlugin,
} from '../../../core/index.js';
import { UPDATE_POLICIES, STATE_STORE } from '../../../contracts/index.js';
import { policiesPlugin } from '../../../plugins/policies/index.js';
import { statePlugin } from '../../../plugins/state/index.js';
import { asStaleness } from '../../helpers/staleness.js';

const DIGEST = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

function target(name: string): Target {
  return { runtime: 'stub', id: `id-${name}`, name, image: `127.0.0.1:5000/${name}:1.0.0`, imageId: `sha256:${name}`, repoDigests: [], labels: {}, imageLabels: {}, state: 'running', dependsOn: [], isSelf: false };
}

/** The on-disk shape of an earlier version's entry: no container id. */
function legacy(id: string, container: string, digest: string): Omit<ApprovalEntry, 'container_id'> {
  return { id, container, image: `127.0.0.1:5000/${container}:1.0.0`, current_tag: '1.0.0', latest_tag: '2.0.0', latest_digest: digest, update_kind: 'major', requested_at: '2026-01-01T00:00:00.000Z', state: 'pending' };
}

t.test('entries kept by name go to the container whose last check found that candidate; the others are superseded', async (t) => {
  const targets = [target('db'), target('web')];
  const seed: TidewatchPlugin<object> = {
    name: 'seed',
    apply(core) {
      const store = core.services.require(STATE_STORE);
      store.setExtension('approvals', [legacy('aaa', 'db', DIGEST(2)), legacy('bbb', 'web', DIGEST(3))]);
      // db's last check found exactly the candidate asked about; web's (a container someone recreated) another.
      store.recordCheck('id-db', { name: 'db', updateAvailable: true, latestDigest: DIGEST(2), checkedAt: '2026-01-01T00:00:00.000Z' });
      store.recordCheck('id-web', { name: 'web', updateAvailable: false, latestDigest: DIGEST(1), checkedAt: '2026-01-02T00:00:00.000Z' });
      core.hooks.discover.tapPromise('seed', async (found) => [...found, ...targets]);
      core.hooks.checkStaleness.tapPromise('seed', async () => asStaleness({ source: REGISTRY_PATH, stale: true, latestDigest: DIGEST(2), latestTag: '2.0.0', currentTag: '1.0.0', updateKind: 'major' }));
      core.hooks.apply.tapPromise('seed', async (plan) => ({ target: plan.target, outcome: 'updated' }));
    },
  };
  const tw = await createTidewatch({
    plugins: [{ plugin: statePlugin, options: { dataDir: '' } }, seed, { plugin: policiesPlugin, options: { approval: 'major' } }] as TidewatchPlugin<object>[],
  });
  t.teardown(() => tw.close());
  const policies = tw.services.require(UPDATE_POLICIES);
  t.equal(policies.approvals().length, 2, 'both read from the store');

  const report = await tw.update();
  t.equal(report.summary.updated, 0, 'nothing applied');
  const db = policies.approvals().find((e) => e.id === 'aaa');
  t.match(db, { state: 'pending', container_id: 'id-db' }, 'db: bound to its container, still pending');
  const web = policies.approvals().find((e) => e.id === 'bbb');
  t.match(web, { state: 'superseded', reason: /kept by name by an earlier version/ }, 'web: superseded with the reason');
  t.notOk(web?.container_id);
  t.match(policies.approvals().filter((e) => e.container === 'web'), [{ id: 'bbb' }, { state: 'pending', container_id: 'id-web' }], 'web is asked again, as its own container');
  t.equal(policies.pendingFor({ name: 'db', id: 'id-db' })?.id, 'aaa');
  t.equal(policies.pendingFor({ name: 'db', id: 'another-id' }), undefined, 'another container under the name has no pending entry');
});
