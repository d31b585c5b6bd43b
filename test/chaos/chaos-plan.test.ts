// The chaos suite's seeds, split by kind over test/chaos/chaos-*.test.ts, still exercise everything together:
// every trigger, both signals, sequential and parallel updates, and both kinds of tag round (plans are drawn
// from the seed alone, so this needs no engine).
import t from 'tap';
import { planRound } from './round.js';
import { SEEDS, TAG_ROUNDS } from './rounds.js';

const plans = SEEDS.map(planRound);
t.equal(new Set(plans.map((p) => p.trigger)).size, 3, 'every trigger is exercised');
t.equal(new Set(plans.map((p) => p.signal)).size, 2, 'both signals are exercised');
t.equal(new Set(plans.map((p) => p.concurrency)).size, 2, 'sequential and parallel updates are exercised');
t.same(new Set(TAG_ROUNDS.map(([, kind]) => kind)), new Set(['tag update', 'rollback']), 'tag updates and rollbacks');
t.ok(['tag update', 'rollback'].every((kind) => TAG_ROUNDS.some(([, k, child]) => k === kind && child)), 'each kind once with a container: child');
