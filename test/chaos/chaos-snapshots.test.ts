// The chaos suite's SIGKILL rounds around volume snapshots (test/chaos/snapshot-round.ts, docs/snapshots.md#crash-safety):
// killed while the snapshot is written, and while the rollback restores it; the next start leaves the app running
// v1 on exactly its own data, nothing left over.
import t from 'tap';
import { mainScenario } from '../helpers/scenarios.js';
import { snapshotRound, type SnapshotRoundKind } from './snapshot-round.js';

const ROUNDS: [number, SnapshotRoundKind][] = [
  [4000, 'snapshot'], [4001, 'snapshot'], [4002, 'snapshot'],
  [4100, 'restore'], [4101, 'restore'], [4102, 'restore'],
];

for (const [seed, kind] of ROUNDS) {
  t.test(`seed ${seed}: SIGKILL during the ${kind}, then a start repairs: v1 runs on its own data`, async (t) => {
    const s = await mainScenario(t, `chaos-snap-${seed}`);
    if (!s) return;
    const { problems, landed } = await snapshotRound(t, s, seed, kind);
    t.comment(`seed ${seed}: killed ${landed}`);
    t.not(landed, 'the moment was missed', `the kill landed ${kind === 'snapshot' ? 'while the snapshot was written' : 'while the volume was restored'}`);
    t.same(problems, [], 'nothing down, nothing left over, the data exactly as at the snapshot');
  });
}
