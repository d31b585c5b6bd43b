// Candidates through gates (docs/plugins.md#candidates-through-gates), with stub taps: a source that knows
// several candidates answers with the highest and `nextCandidate`; the core's gate step walks them, every gate
// judging the candidate in hand, and the runtime applies exactly the one that passed.
import t from 'tap';
import { STAGES, createTidewatch, type Staleness, type Target, type TidewatchPlugin, type UpdatePlan } from '../../core/index.js';
import { MAX_GATE_CANDIDATES } from '../../core/candidates.js';
import { fakeTarget } from '../helpers/targets.js';
import { asStaleness } from '../helpers/staleness.js';;

/** Candidates `tags`, highest first, each with a digest of its own; counts the lower candidates asked for. */
function tagSource(target: Target, tags: readonly string[], asked: { next: number }): TidewatchPlugin<object> {
  const candidate = (i: number): Staleness => (asStaleness({
    source: 'registry',
    stale: true,
    currentTag: '1.0.0',
    latestTag: tags[i] as string,
    latestDigest: `sha256:${String(i).repeat(64).slice(0, 64)}`,
    updateKind: 'minor',
    nextCandidate: async () => {
      asked.next++;
      return i + 1 < tags.length ? candidate(i + 1) : undefined;
    },
  }));
  return {
    name: 'tag-source',
    apply(core) {
      core.hooks.discover.tapPromise('tag-source', async (found) => [...found, target]);
      core.hooks.checkStaleness.tapPromise('tag-source', async () => candidate(0));
    },
  };
}

/** Two gates at their stages, refusing the tags they are given; records what each judged. */
function gates(refuseSigned: Set<string>, refuseYoung: Set<string>, judged: string[], reportOnly = false): TidewatchPlugin<object> {
  return {
    name: 'gates',
    apply(core) {
      core.hooks.gate.tapPromise({ name: 'young', stage: STAGES.gate.defer }, async (_t, s) => {
        judged.push(`cooldown:${s.latestTag}`);
        if (reportOnly) return { reason: 'monitor only', reportOnly: true };
        return refuseYoung.has(s.latestTag ?? '') ? { reason: `cooldown: ${s.latestTag} too young`, by: 'cooldown', until: new Date(Date.UTC(2030, 0, Number(s.latestTag?.split('.')[1]))) } : undefined;
      });
      core.hooks.gate.tapPromise({ name: 'signed', stage: STAGES.gate.verify }, async (_t, s) => {
        judged.push(`signature:${s.latestTag}`);
        return refuseSigned.has(s.latestTag ?? '') ? { reason: `signature unsigned: ${s.latestTag}`, by: 'signatures' } : undefined;
      });
    },
  };
}

function applier(plans: UpdatePlan[]): TidewatchPlugin<object> {
  return {
    name: 'applier',
    apply: (core) => core.hooks.apply.tapPromise('applier', async (plan) => (plans.push(plan), { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' })),
  };
}

const TAGS = ['1.4.0', '1.3.1', '1.3.0', '1.2.0', '1.1.1', '1.1.0', '1.0.9'];

async function run(refuseSigned: string[], refuseYoung: string[], options: { reportOnly?: boolean; reviewed?: string[] } = {}) {
  const target = fakeTarget('app', { image: '127.0.0.1:5000/app:1.0.0' });
  const asked = { next: 0 };
  const judged: string[] = [];
  const plans: UpdatePlan[] = [];
  const reviewer: TidewatchPlugin<object> = {
    name: 'reviewer',
    apply: (core) => core.hooks.review.tapPromise('reviewer', async (s) => (options.reviewed?.push(s.latestTag ?? ''), s)),
  };
  const tw = await createTidewatch({
    plugins: [tagSource(target, TAGS, asked), gates(new Set(refuseSigned), new Set(refuseYoung), judged, options.reportOnly), applier(plans), reviewer],
  });
  const report = await tw.update();
  await tw.close();
  return { report, asked, judged, plans };
}

t.test('the highest candidate passing every gate is applied, exactly that one', async (t) => {
  const reviewed: string[] = [];
  const { report, judged, plans, asked } = await run(['1.4.0'], ['1.3.1'], { reviewed });
  t.equal(plans.length, 1);
  t.equal(plans[0]?.staleness.latestTag, '1.3.0', 'unsigned 1.4.0 and too young 1.3.1 gave way to 1.3.0');
  t.equal(plans[0]?.staleness.latestDigest, `sha256:${'2'.repeat(64)}`, "the runtime gets that candidate's digest");
  t.equal(plans[0]?.staleness.candidatesTried, 3);
  t.same(judged, ['cooldown:1.4.0', 'signature:1.4.0', 'cooldown:1.3.1', 'cooldown:1.3.0', 'signature:1.3.0'], 'each gate judged the candidate in hand');
  t.same(reviewed, ['1.4.0', '1.3.1', '1.3.0'], 'each lower candidate reviewed like the first (its signature verdict)');
  t.equal(asked.next, 2, 'no candidate read beyond the one that passed');
  t.equal(report.checks[0]?.staleness.latestTag, '1.3.0', 'the report names the candidate applied');
  t.match(report.summary, { updated: 1, skipped: 0 });
});

t.test('the first candidate passing: nothing more is read, nothing marked', async (t) => {
  const { plans, asked } = await run([], []);
  t.equal(plans[0]?.staleness.latestTag, '1.4.0');
  t.equal(plans[0]?.staleness.candidatesTried, undefined);
  t.equal(asked.next, 0);
});

t.test(`none passes: at most ${MAX_GATE_CANDIDATES} tried, and the reason says how many and why each`, async (t) => {
  const { report, plans, asked } = await run(TAGS, ['1.3.1']);
  t.equal(plans.length, 0, 'nothing applied');
  t.equal(asked.next, MAX_GATE_CANDIDATES - 1, 'bounded');
  const skipped = report.skipped[0];
  t.equal(skipped?.candidatesTried, MAX_GATE_CANDIDATES);
  t.match(skipped?.reason, /^signature unsigned: 1\.4\.0 \(1\.4\.0\); 5 candidates tried, none passed: 1\.3\.1: cooldown: 1\.3\.1 too young; 1\.3\.0: signature unsigned: 1\.3\.0;/);
  t.notMatch(skipped?.reason, /1\.1\.0/, 'the sixth candidate was never judged');
  t.match(report.summary, { updated: 0, skipped: 1 });
});

t.test('one refusal only (no lower candidate): the gate reason as it was', async (t) => {
  const target = fakeTarget('solo', { image: '127.0.0.1:5000/solo:1.0.0' });
  const tw = await createTidewatch({ plugins: [tagSource(target, ['1.1.0'], { next: 0 }), gates(new Set(['1.1.0']), new Set(), []), applier([])] });
  const report = await tw.update();
  await tw.close();
  t.same(report.skipped.map((s) => [s.reason, s.candidatesTried]), [['signature unsigned: 1.1.0', undefined]]);
});

t.test('a report-only gate (monitor-only) holds every candidate: no other is read', async (t) => {
  const { report, asked, plans } = await run([], [], { reportOnly: true });
  t.equal(plans.length, 0);
  t.equal(asked.next, 0);
  t.same(report.skipped, [], 'reported, not skipped (Watchtower counts it scanned)');
});
