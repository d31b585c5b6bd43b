// What a notification says of volume snapshots (docs/snapshots.md, docs/notifications.md#the-report): an update
// that took one says so; a failed update whose rollback put the volumes back says they were restored.
import t from 'tap';
import type { ApplyResult, CheckResult, Staleness, UpdateReport } from '../../../core/index.js';
import { runOutcome } from '../../../plugins/notify/outcome.js';
import { fakeTarget } from '../../helpers/targets.js';

const stale: Staleness = { source: 'registry', stale: true, latestDigest: `sha256:${'4f'.repeat(32)}` };
const checkOf = (name: string): CheckResult => ({ target: fakeTarget(name), staleness: stale, checkedAt: new Date() });

function update(checks: CheckResult[], results: ApplyResult[]): UpdateReport {
  const at = new Date();
  return { runId: 'r1', targeted: false, summary: { scanned: 2, updated: 1, failed: 1, restarted: 0, skipped: 0 }, checks, results, skipped: [], startedAt: at, finishedAt: at };
}

t.test('snapshot taken, volumes restored', async (t) => {
  const checks = [checkOf('db'), checkOf('app'), checkOf('plain')];
  const [db, app, plain] = checks.map((c) => c.target) as [CheckResult['target'], CheckResult['target'], CheckResult['target']];
  const outcome = runOutcome({
    run_id: 'r1',
    kind: 'update',
    report: update(checks, [
      { target: db, outcome: 'updated', newImageId: 'sha256:new', snapshot: { id: 'snap-1', volumes: ['db-data'] } },
      { target: app, outcome: 'failed', error: 'new container exited with code 1', rolledBack: true, snapshot: { id: 'snap-2', volumes: ['a', 'b'], restored: true } },
      { target: plain, outcome: 'updated', newImageId: 'sha256:new2' },
    ]),
  });
  const lines = (name: string) => outcome.entries.filter((e) => e.container === name && /snapshot/i.test(e.message)).map((e) => e.message);
  t.same(lines('db'), ["Snapshot snap-1 of /db's volumes (db-data) taken before the update"]);
  t.same(lines('app'), ['Restored the volumes of /app (a, b) from snapshot snap-2']);
  t.same(lines('plain'), [], 'nothing about snapshots without one');
  t.same(outcome.containers.find((c) => c.target.name === 'app')?.snapshot, { id: 'snap-2', volumes: ['a', 'b'], restored: true });
});
