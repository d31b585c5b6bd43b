// The chaos suite's fixed rounds (`npm run chaos -- --seeds 7` replays one), shared by its files: one file
// per kind of round (test/chaos/chaos-*.test.ts), so that tap's jobs run the kinds side by side instead of
// one file holding the environment lane for five minutes. Every round must leave 0 containers down,
// 0 leftovers, 0 lost.
import t from 'tap';
import { requireEnv } from '../helpers/env.js';
import { planRound, runRound, table, type RoundResult, type Trigger } from './round.js';
import { runTagRound, tagTable, type TagRoundKind, type TagRoundResult } from './tag-round.js';

export const SEEDS = Array.from({ length: 20 }, (_, i) => 1000 + i);

/** The seeded rounds whose trigger is `trigger`: stopped at random, nothing down, nothing left over. */
export function seededRounds(trigger: Trigger): void {
  const seeds = SEEDS.filter((seed) => planRound(seed).trigger === trigger);
  t.test(`${seeds.length} seeded rounds triggered by ${trigger}: stopped at random, nothing down, nothing left over`, async (t) => {
    const env = await requireEnv(t);
    if (!env) return;
    t.ok(seeds.length > 0, 'the seeds include this trigger');
    const results: RoundResult[] = [];
    for (const seed of seeds) {
      const result = await runRound(env, seed);
      results.push(result);
      t.same(result.problems, [], `seed ${seed}: ${result.trigger}, ${result.signal} at ${result.stopAfterMs} ms, concurrency ${result.concurrency} (${result.phase})`);
    }
    t.comment(`\n${table(results)}`);
  });
}

// Replacements that change the image name: crash repair must know them by what it recorded, not the name.
// The last of each kind with a child in the parent's network namespace (`--network container:<parent>`).
export const TAG_ROUNDS: [number, TagRoundKind, boolean][] = [
  [2000, 'tag update', false], [2001, 'tag update', false], [2002, 'tag update', false], [2003, 'rollback', false], [2004, 'rollback', false],
  [3000, 'tag update', true], [3001, 'rollback', true],
];

/** The SIGKILL rounds of one kind (tag update or rollback), each repaired by the next start. */
export function tagRounds(kind: TagRoundKind): void {
  const rounds = TAG_ROUNDS.filter(([, k]) => k === kind);
  t.test(`${rounds.length} SIGKILL rounds during a ${kind} (one with a container: child), each repaired by the next start`, async (t) => {
    const env = await requireEnv(t);
    if (!env) return;
    const results: TagRoundResult[] = [];
    for (const [seed, , child] of rounds) {
      const result = await runTagRound(env, seed, kind, child);
      results.push(result);
      t.same(result.problems, [], `seed ${seed}: SIGKILL ${kind}${child ? ' of a parent with a container: child' : ''} ${result.stopAfterMs} ms after staging (${result.phase})`);
    }
    t.comment(`\n${tagTable(results)}`);
  });
}
