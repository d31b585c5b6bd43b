// A release handed to the ephemeral self-update helper (docs/image.md#ephemeral-self-update) is remembered
// as a failed candidate before the hand-over, and the run's outcome (`updated`, no successor known) does
// not forget it: if the helper puts the old container back, the gate finds the very release and skips it.
// The same on the real engine with the real image: test/image/ephemeral-self-update.test.ts.
import t from 'tap';
import type { ApplyResult, Staleness, UpdatePlan } from '../../../core/index.js';
import { openStateStore } from '../../../plugins/state/store.js';
import { presumedFailedRelease } from '../../../plugins/docker/self/ephemeral.js';
import { isFailedCandidate, rememberOutcome } from '../../../plugins/state/failed-candidates.js';
import { fakeTarget } from '../../helpers/targets.js';
import { memoryLogger } from '../../helpers/memory-logger.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const self = fakeTarget('tidewatch', { runtime: 'docker', isSelf: true, id: 'c'.repeat(64) });
const staleness: Staleness = { source: 'registry', stale: true, latestDigest: `127.0.0.1:5101/tidewatch@${DIGEST}` };
const plan = { target: self, staleness, dependents: [] } as unknown as UpdatePlan;

t.test('the hand-off outcome keeps the presumed failure; the gate knows the release', async (t) => {
  const store = await openStateStore({ logger: memoryLogger() });
  store.setFailedCandidate(self.id, presumedFailedRelease(plan, 'sha256:new-image'));
  const handedOff: ApplyResult = { target: self, outcome: 'updated', oldImageId: 'sha256:old', newImageId: 'sha256:new-image' };
  rememberOutcome(store, handedOff, staleness);
  const failed = store.failedCandidate(self.id);
  t.ok(failed, 'still remembered after the run reported the hand-off as updated');
  t.equal(failed?.digest, DIGEST, 'by the release digest');
  t.match(failed?.reason, /helper put this container back/);
  t.ok(failed && isFailedCandidate(failed, staleness), 'the next check of the same release is that candidate');
  t.notOk(failed && isFailedCandidate(failed, { ...staleness, latestDigest: `127.0.0.1:5101/tidewatch@sha256:${'b'.repeat(64)}` }), 'a newer release is not');
});

t.test('an update that replaced a container forgets its failed candidate, own or not', async (t) => {
  const store = await openStateStore({ logger: memoryLogger() });
  store.setFailedCandidate(self.id, presumedFailedRelease(plan, 'sha256:new-image'));
  rememberOutcome(store, { target: self, outcome: 'updated', newContainerId: 'd'.repeat(64) }, staleness);
  t.equal(store.failedCandidate(self.id), undefined, 'a self-update beside (successor known) forgets it');
  const other = fakeTarget('web', { runtime: 'docker' });
  store.setFailedCandidate(other.id, presumedFailedRelease({ ...plan, target: other } as UpdatePlan, 'x'));
  rememberOutcome(store, { target: other, outcome: 'updated' }, staleness);
  t.equal(store.failedCandidate(other.id), undefined, 'any other container forgets it');
});
