// The small rules around the store (docs/state.md): when a hold still holds, which retained images are due
// for removal, and how a start-up repair is written to the audit trail.
import t from 'tap';
import { openStateStore } from '../../core/index.js';
import { auditRepair } from '../../plugins/docker/replace/repair-audit.js';
import { retainImages } from '../../plugins/docker/image/retention.js';
import { holdReason, isHeldImage } from '../../plugins/state/hold-gate.js';
import { memoryLogger } from '../helpers/memory-logger.js';

const hold = { imageId: 'sha256:new', digest: 'sha256:d2', image: 'r/web:latest', since: '2026-01-01T00:00:00Z' };

t.test('a hold holds while the newest image is the one rolled back from', async (t) => {
  t.equal(isHeldImage(hold, { source: 'registry', stale: true, latestDigest: 'r/web@sha256:d2' }), true, 'same digest');
  t.equal(isHeldImage(hold, { source: 'registry', stale: true, latestDigest: 'sha256:d3' }), false, 'a newer digest ends it');
  t.equal(isHeldImage(hold, { source: 'no-pull', stale: true, latestImageId: 'sha256:new' }), true, 'same local image');
  t.equal(isHeldImage(hold, { source: 'no-pull', stale: true, latestImageId: 'sha256:newer' }), false);
  t.equal(isHeldImage(hold, { source: 'git', stale: true }), true, 'cannot tell: still held');
  t.match(holdReason(hold, 'web'), /held after a rollback from sha256:d2: POST \/v1\/release\?container=web/);
});

t.test('retained images are kept for the retention, per engine, and given back once due', async (t) => {
  const store = await openStateStore();
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.same(retainImages(store, [{ imageId: 'sha256:a', imageName: 'r/a' }], 'e1', 1000, now), [], 'nothing due yet');
  t.same(retainImages(store, [{ imageId: 'sha256:b', imageName: 'r/b' }], 'e2', 1000, now), []);
  t.same(retainImages(store, [], 'e1', 1000, now + 999), [], 'within the retention');
  t.same(retainImages(store, [], 'e1', 1000, now + 1000), [{ imageId: 'sha256:a', imageName: 'r/a' }], 'due on its engine');
  t.same(store.retainedImages().map((r) => r.imageId), ['sha256:b'], 'the other engine keeps its image');
  t.same(retainImages(store, [], 'e1', 1000, now + 5000), [], 'given back once only');
  retainImages(store, [{ imageId: 'sha256:c', imageName: 'r/c' }], 'e1', 1000, now);
  t.same(retainImages(store, [{ imageId: 'sha256:c', imageName: 'r/c' }], 'e1', 1000, now + 1000), [], 'kept again by this run: not due');
});

t.test('a start-up repair is written to the audit trail', async (t) => {
  const store = await openStateStore();
  await auditRepair(store, { restored: ['web'], removed: ['db (unproven replacement)'], predecessors: [], problems: [] }, 'unix:///x', memoryLogger());
  t.match(await store.audit(), [
    { action: 'repair', container: 'web', host: 'unix:///x', trigger: 'startup', run_id: '', outcome: 'restored' },
    { action: 'repair', container: 'db (unproven replacement)', outcome: 'removed' },
  ]);
  await auditRepair(undefined, { restored: ['web'], removed: [], predecessors: [], problems: [] }, 'unix:///x', memoryLogger());
  t.pass('without a store nothing is written and nothing fails');
});
