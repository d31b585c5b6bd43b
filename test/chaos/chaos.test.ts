// The chaos suite in CI: fixed seeds, so a failure can be replayed (`npm run chaos -- --seeds 7`). Every
// round must leave 0 containers down, 0 leftovers, 0 lost. A longer random run: scripts/chaos.ts.
import t from 'tap';
import { requireEnv } from '../helpers/env.js';
import { runRound, table, type RoundResult } from './round.js';
import { runTagRound, tagTable, type TagRoundKind, type TagRoundResult } from './tag-round.js';

const SEEDS = Array.from({ length: 20 }, (_, i) => 1000 + i);

t.test(`${SEEDS.length} seeded rounds: stopped at random, nothing down, nothing left over`, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const results: RoundResult[] = [];
  for (const seed of SEEDS) {
    const result = await runRound(env, seed);
    results.push(result);
    t.same(result.problems, [], `seed ${seed}: ${result.trigger}, ${result.signal} at ${result.stopAfterMs} ms, concurrency ${result.concurrency} (${result.phase})`);
  }
  t.comment(`\n${table(results)}`);
  t.ok(new Set(results.map((r) => r.trigger)).size === 3, 'every trigger was exercised');
  t.ok(new Set(results.map((r) => r.signal)).size === 2, 'both signals were exercised');
  t.ok(new Set(results.map((r) => r.concurrency)).size === 2, 'sequential and parallel updates were exercised');
});

// Replacements that change the image name: crash repair must know them by what it recorded, not the name.
// The last two with a child in the parent's network namespace (`--network container:<parent>`).
const TAG_ROUNDS: [number, TagRoundKind, boolean][] = [
  [2000, 'tag update', false], [2001, 'tag update', false], [2002, 'tag update', false], [2003, 'rollback', false], [2004, 'rollback', false],
  [3000, 'tag update', true], [3001, 'rollback', true],
];

t.test(`${TAG_ROUNDS.length} SIGKILL rounds during tag updates and rollbacks (two with a container: child), each repaired by the next start`, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const results: TagRoundResult[] = [];
  for (const [seed, kind, child] of TAG_ROUNDS) {
    const result = await runTagRound(env, seed, kind, child);
    results.push(result);
    t.same(result.problems, [], `seed ${seed}: SIGKILL ${kind}${child ? ' of a parent with a container: child' : ''} ${result.stopAfterMs} ms after staging (${result.phase})`);
  }
  t.comment(`\n${tagTable(results)}`);
});
