// The chaos suite by hand, longer and random: `npm run chaos -- --rounds 100` (or `--seeds 1,2,3` to
// replay). Each seed also kills a tag update or a rollback (test/chaos/tag-round.ts). Needs the test
// environment (`sudo bash scripts/test-env.sh up`). Prints the table of rounds: trigger, signal, when, the
// phase of the replacement at the stop, and the result.
import { testEnv } from '../test/helpers/env.js';
import { runRound, table, type RoundResult } from '../test/chaos/round.js';
import { runTagRound, tagTable, type TagRoundResult } from '../test/chaos/tag-round.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const env = await testEnv();
if (!env) {
  console.error('chaos: no test environment; start it with: sudo bash scripts/test-env.sh up');
  process.exit(1);
}
const seeds = arg('seeds')
  ? arg('seeds')!.split(',').map(Number)
  : Array.from({ length: Number(arg('rounds') ?? 100) }, () => Math.floor(Math.random() * 1e9));
const results: RoundResult[] = [];
// Every seed also kills a tag-policy update or a rollback (test/chaos/tag-round.ts), alternately.
const tagResults: TagRoundResult[] = [];
for (const seed of seeds) {
  const result = await runRound(env, seed);
  results.push(result);
  console.log(table([result]).split('\n')[1]);
  // Every third of them with a child in the parent's network namespace.
  const tagResult = await runTagRound(env, seed, seed % 2 === 0 ? 'tag update' : 'rollback', seed % 3 === 0);
  tagResults.push(tagResult);
  console.log(tagTable([tagResult]).split('\n')[1]);
}
console.log(`\n${table(results)}\n\n${tagTable(tagResults)}`);
process.exit([...results, ...tagResults].some((r) => r.problems.length > 0) ? 1 : 0);
