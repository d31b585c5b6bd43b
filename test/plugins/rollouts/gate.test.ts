// The rollout gate (plugins/rollouts/gate.ts, docs/rollouts.md) on the state store (in memory), with the run
// contexts the core makes: which runs it holds back (automatic ones), which it never touches (a person's targeted
// update, a rollback, a check), when a candidate is staged at all, and that the rollout survives a new ledger
// read from the same store (a restart).
import t from 'tap';
import type { RunContext, Staleness } from '../../../core/index.js';
import { createRunContext } from '../../../core/run-context.js';
import { DueInRuns, rolloutSkip, type GateDeps } from '../../../plugins/rollouts/gate.js';
import { record } from '../../../plugins/rollouts/machine.js';
import { RolloutLedger } from '../../../plugins/rollouts/ledger.js';
import { openStateStore } from '../../../plugins/state/store.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { fakeTarget } from '../../helpers/targets.js';

const IMAGE = '127.0.0.1:5000/acme/app:latest';
const stale: Staleness = { source: 'registry', stale: true, latestDigest: 'sha256:' + 'b'.repeat(64) };
const on = (host: string, stage: number) => fakeTarget('app', { image: IMAGE, host, stage });
const a1 = on('unix:///a.sock', 1);
const b2 = on('tcp://b:2376', 2);
const c2 = on('tcp://c:2376', 2);

async function setup() {
  const store = await openStateStore({});
  const logger = memoryLogger();
  const halted: string[] = [];
  const deps: GateDeps = {
    ledger: new RolloutLedger(store),
    due: new DueInRuns(),
    logger,
    verify: async () => ({ kind: 'ok' }),
    halted: (r) => halted.push(r.id),
  };
  const run = (request: Parameters<typeof createRunContext>[1] = {}, kind: 'update' | 'check' = 'update'): RunContext =>
    createRunContext(kind, request, logger);
  /** One run's review of the targets, then the gate's answer for each. */
  const judge = async (ctx: RunContext, targets = [a1, b2, c2], answer = stale) => {
    for (const target of targets) deps.due.note(target, answer, ctx);
    return Promise.all(targets.map(async (target) => (await rolloutSkip(deps, target, answer, ctx))?.reason));
  };
  return { store, deps, run, judge, halted };
}

t.test('an automatic run holds stage 2 back; a person\'s targeted update and a rollback are not held', async (t) => {
  const { deps, run, judge, store } = await setup();
  t.same(await judge(run({ trigger: 'schedule' })), [undefined, 'rollout waiting: stage 1 updating (0 of 1 replaced)', 'rollout waiting: stage 1 updating (0 of 1 replaced)']);
  t.same(await judge(run({ trigger: 'api' })), [undefined, /* untargeted API update */ 'rollout waiting: stage 1 updating (0 of 1 replaced)', 'rollout waiting: stage 1 updating (0 of 1 replaced)'], 'an untargeted POST /v1/update is automatic');
  const person = run({ trigger: 'api', filters: { containers: ['app'], hosts: ['tcp://b:2376'] } });
  t.same(await judge(person, [b2]), [undefined], 'a person\'s targeted update of one container on one host applies at once');
  const rolloutRun = run({ trigger: 'rollout', filters: { containers: ['app'], hosts: ['tcp://b:2376'] } });
  t.match(await judge(rolloutRun, [b2]), [/rollout waiting/], 'the rollout\'s own runs are automatic');
  const rollback = { ...stale, targetImageId: 'sha256:' + 'c'.repeat(64) };
  t.same(await judge(run({ trigger: 'schedule' }), [b2], rollback), [undefined], 'a rollback on demand is never staged');
  t.same(await judge(run({ trigger: 'schedule' }, 'check'), [b2]), [undefined], 'a check is never gated');
  t.equal(deps.ledger.active().length, 1, 'one rollout for the candidate');

  // A restart: a new ledger over the same store finds the rollout going on.
  const reopened = new RolloutLedger(store);
  t.match(reopened.active(), [{ state: 'running', stages: [{ stage: 1 }, { stage: 2 }] }]);
});

t.test('a candidate due on one stage only is not staged', async (t) => {
  const { deps, run, judge } = await setup();
  t.same(await judge(run({ trigger: 'schedule' }), [b2, c2]), [undefined, undefined]);
  t.equal(deps.ledger.active().length, 0, 'no rollout');
  const other: Staleness = { ...stale, latestDigest: 'sha256:' + 'd'.repeat(64) };
  t.match(await judge(run({ trigger: 'schedule' }), [fakeTarget('app', { image: IMAGE, host: 'unix:///a.sock' }), b2], other), [undefined, /rollout waiting/], 'a target without a stage is stage 1');
});

t.test('a replacement that did not stay up through the soak halts the rollout, once', async (t) => {
  const { deps, run, judge, halted } = await setup();
  await judge(run({ trigger: 'schedule' }));
  const [rollout] = deps.ledger.active();
  const member = rollout?.stages[0]?.members[0];
  if (!rollout || !member) return t.fail('a rollout');
  member.state = 'updated';
  member.at = new Date(Date.now() - 1000).toISOString();
  member.new_id = 'n1';
  (rollout.stages[0] as { state: string }).state = 'soaking';
  rollout.stages[0]!.soak_until = new Date(Date.now() - 10).toISOString();
  rollout.state = 'soaking';
  deps.ledger.save(rollout);
  const failing: GateDeps = { ...deps, verify: async (stage) => ({ kind: 'failed', member: stage.members[0]!, why: 'app on unix:///a.sock not running during the soak' }) };
  const ctx = run({ trigger: 'schedule' });
  for (const target of [a1, b2, c2]) deps.due.note(target, stale, ctx);
  t.equal((await rolloutSkip(failing, b2, stale, ctx))?.reason, 'rollout halted: unix:///a.sock failed');
  t.equal((await rolloutSkip(failing, c2, stale, ctx))?.reason, 'rollout halted: unix:///a.sock failed');
  t.same(halted, [rollout.id], 'people are told once');
  t.equal(deps.ledger.get(rollout.id)?.state, 'halted');
});

t.test('at the soak\'s end an engine that does not answer decides nothing; one that does lets stage 2 go', async (t) => {
  const { deps, run, judge } = await setup();
  await judge(run({ trigger: 'schedule' }));
  const [rollout] = deps.ledger.active();
  if (!rollout) return t.fail('a rollout');
  record(rollout, { host: 'unix:///a.sock', container: 'app', outcome: 'updated', newId: 'n1' }, 0, new Date(Date.now() - 5));
  deps.ledger.save(rollout);
  const unknown: GateDeps = { ...deps, verify: async () => ({ kind: 'unknown', why: 'unix:///a.sock did not answer' }) };
  const ctx = run({ trigger: 'schedule' });
  for (const target of [b2, c2]) deps.due.note(target, stale, ctx);
  t.equal((await rolloutSkip(unknown, b2, stale, ctx))?.reason, 'rollout waiting: stage 1 not verified (unix:///a.sock did not answer)');
  t.equal(deps.ledger.get(rollout.id)?.state, 'soaking', 'still soaking');
  const next = run({ trigger: 'schedule' });
  for (const target of [b2, c2]) deps.due.note(target, stale, next);
  t.equal(await rolloutSkip(deps, b2, stale, next), undefined, 'verified: stage 2 goes');
  t.equal(await rolloutSkip(deps, c2, stale, next), undefined);
  t.match(deps.ledger.get(rollout.id), { state: 'running', stages: [{ state: 'done' }, { state: 'running' }] });
});
