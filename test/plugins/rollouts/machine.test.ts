// The stage state machine of a staged rollout (plugins/rollouts/machine.ts, docs/rollouts.md): stages run in
// order, a stage soaks from its last replacement, a failure halts the later stages, a release lets them go,
// a newer candidate ends it.
import t from 'tap';
import {
  admit,
  createRollout,
  halt,
  haltReason,
  join,
  needsStaging,
  nextStage,
  record,
  release,
  soaked,
  soakingUntil,
  supersede,
  type DueMember,
  type Rollout,
} from '../../../plugins/rollouts/machine.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const SOAK = 60_000;
const due: DueMember[] = [
  { host: 'a', container: 'web', stage: 1 },
  { host: 'b', container: 'web', stage: 2 },
  { host: 'c', container: 'web', stage: 2 },
  { host: 'd', container: 'web', stage: 3 },
];
const make = (members: DueMember[] = due): Rollout =>
  createRollout({ id: '0123456789abcdef', repository: 'r/app', image: 'r/app:latest', digest: 'sha256:1' }, members, T0);

t.test('only a candidate due on several stages is staged', async (t) => {
  t.notOk(needsStaging([{ host: 'a', container: 'x', stage: 1 }, { host: 'b', container: 'x', stage: 1 }]));
  t.ok(needsStaging(due));
  const rollout = make();
  t.same(rollout.stages.map((s) => [s.stage, s.state, s.members.length]), [[1, 'running', 1], [2, 'waiting', 2], [3, 'waiting', 1]]);
  t.equal(rollout.state, 'running');
});

t.test('stage by stage: proof, soak, verification, next stage', async (t) => {
  const rollout = make();
  t.same(admit(rollout, 1, T0), { kind: 'pass' }, 'stage 1 runs');
  t.match(admit(rollout, 2, T0), { kind: 'wait', reason: 'rollout waiting: stage 1 updating (0 of 1 replaced)' });
  t.match(admit(rollout, 3, T0), { kind: 'wait', reason: /stage 1 updating/ }, 'stage 3 waits on the first unfinished stage');

  t.same(record(rollout, { host: 'a', container: 'web', outcome: 'updated', newId: 'n1' }, SOAK, at(10)), { changed: true, halted: false });
  t.equal(rollout.state, 'soaking');
  t.same(soakingUntil(rollout), at(70), 'the soak runs from the last replacement');
  const waiting = admit(rollout, 2, at(30));
  t.match(waiting, { kind: 'wait', reason: `rollout waiting: stage 1 soaking until ${at(70).toISOString()}` });
  t.same(waiting.kind === 'wait' ? waiting.until : undefined, at(70));

  const verify = admit(rollout, 2, at(70));
  t.equal(verify.kind, 'verify', 'at the soak\'s end the stage must be verified');
  if (verify.kind !== 'verify') return;
  t.equal(verify.stage.stage, 1);
  soaked(rollout, verify.stage, at(70));
  t.same(rollout.stages.map((s) => s.state), ['done', 'running', 'waiting']);
  t.same(admit(rollout, 2, at(71)), { kind: 'pass' });
  t.match(admit(rollout, 3, at(71)), { kind: 'wait', reason: 'rollout waiting: stage 2 updating (0 of 2 replaced)' });

  record(rollout, { host: 'b', container: 'web', outcome: 'updated', newId: 'n2' }, SOAK, at(80));
  t.equal(rollout.stages[1]?.state, 'running', 'one of two replaced: the stage is still running');
  t.match(admit(rollout, 3, at(81)), { reason: /stage 2 updating \(1 of 2 replaced\)/ });
  record(rollout, { host: 'c', container: 'web', outcome: 'updated', newId: 'n3' }, SOAK, at(90));
  t.same(soakingUntil(rollout), at(150));
  t.same(nextStage(rollout)?.stage, 3);
  const second = admit(rollout, 3, at(150));
  if (second.kind !== 'verify') return t.fail('verify expected');
  soaked(rollout, second.stage, at(150));
  t.same(admit(rollout, 3, at(150)), { kind: 'pass' });
  record(rollout, { host: 'd', container: 'web', outcome: 'updated', newId: 'n4' }, SOAK, at(160));
  t.equal(rollout.state, 'done', 'the last stage is done once replaced: nothing waits on its soak');
  t.same(admit(rollout, 2, at(161)), { kind: 'pass' });
  t.equal(nextStage(rollout), undefined);
});

t.test('a failure halts every later stage until released', async (t) => {
  const rollout = make();
  t.same(record(rollout, { host: 'a', container: 'web', outcome: 'failed', error: 'new container exited with code 3' }, SOAK, at(5)), { changed: true, halted: true });
  t.equal(rollout.state, 'halted');
  t.equal(haltReason(rollout), 'rollout halted: a failed');
  t.same(admit(rollout, 2, at(6)), { kind: 'halted', reason: 'rollout halted: a failed' });
  t.same(admit(rollout, 3, at(6)), { kind: 'halted', reason: 'rollout halted: a failed' });
  t.same(admit(rollout, 1, at(6)), { kind: 'pass' }, 'the halted stage itself is not held back');
  t.same(record(rollout, { host: 'a', container: 'web', outcome: 'failed' }, SOAK, at(7)), { changed: false, halted: false }, 'a member is recorded once');

  t.notOk(release(make(), 'x', SOAK, at(8)), 'only a halted rollout is released');
  t.ok(release(rollout, 'token:ops', SOAK, at(10)));
  t.match(rollout, { state: 'soaking', released: { by: 'token:ops' } });
  t.equal(rollout.halted, undefined);
  t.same(soakingUntil(rollout), at(70), 'nothing replaced in the stage: the soak runs from the release');
  const verify = admit(rollout, 2, at(70));
  t.equal(verify.kind, 'verify');
});

t.test('a replacement that did not stay up through the soak halts it too', async (t) => {
  const rollout = make(due.slice(0, 2));
  record(rollout, { host: 'a', container: 'web', outcome: 'updated', newId: 'n1' }, 0, at(1));
  const verify = admit(rollout, 2, at(1));
  if (verify.kind !== 'verify') return t.fail('verify expected');
  halt(rollout, verify.stage, verify.stage.members[0] as NonNullable<(typeof verify.stage.members)[number]>, 'web on a not running during the soak', at(2));
  t.match(rollout, { state: 'halted', halted: { host: 'a', stage: 1, error: /not running/ } });
  t.match(rollout.stages[0]?.members[0], { state: 'failed' });
});

t.test('a stage whose containers were all replaced already (a person\'s targeted update) settles as it starts', async (t) => {
  const rollout = make(due.slice(0, 3));
  record(rollout, { host: 'b', container: 'web', outcome: 'updated' }, SOAK, at(1));
  record(rollout, { host: 'c', container: 'web', outcome: 'updated' }, SOAK, at(2));
  t.equal(rollout.stages[1]?.state, 'waiting', 'replaced ahead of its stage: the stage still waits its turn');
  record(rollout, { host: 'a', container: 'web', outcome: 'updated' }, SOAK, at(3));
  const verify = admit(rollout, 2, at(63));
  if (verify.kind !== 'verify') return t.fail('verify expected');
  soaked(rollout, verify.stage, at(63), SOAK);
  t.equal(rollout.state, 'done', 'the last stage, already replaced, is done at once');
});

t.test('late containers join their stage; a newer candidate supersedes', async (t) => {
  const rollout = make(due.slice(0, 2));
  t.ok(join(rollout, { host: 'e', container: 'web', stage: 1 }), 'a container due later joins the running stage');
  t.notOk(join(rollout, { host: 'e', container: 'web', stage: 1 }), 'once');
  t.ok(join(rollout, { host: 'f', container: 'web', stage: 5 }), 'a stage the rollout lacked is added');
  t.same(rollout.stages.map((s) => s.stage), [1, 2, 5]);
  record(rollout, { host: 'a', container: 'web', outcome: 'updated' }, SOAK, at(1));
  t.equal(rollout.state, 'running', 'stage 1 still has e to replace');
  record(rollout, { host: 'e', container: 'web', outcome: 'updated' }, SOAK, at(2));
  t.equal(rollout.state, 'soaking');
  t.notOk(join(rollout, { host: 'g', container: 'web', stage: 1 }), 'a soaking stage takes no one new');

  supersede(rollout, 'fedcba9876543210', at(3));
  t.match(rollout, { state: 'done', superseded_by: 'fedcba9876543210' });
  t.same(admit(rollout, 5, at(4)), { kind: 'pass' }, 'a superseded rollout holds nothing back');
  t.same(record(rollout, { host: 'b', container: 'web', outcome: 'failed' }, SOAK, at(5)), { changed: false, halted: false });
});
