// The review hook (docs/plugins.md#hooks): after the source answers a target stale, a plugin may add a note
// to the answer a check reports (the Compose note does); an answer with an error is left as the source gave it.
import t from 'tap';
import { STAGES, createTidewatch, defineFinding, definePlugin, readFinding, withFinding } from '../../core/index.js';
import { fakeTarget } from '../helpers/targets.js';

const runtime = definePlugin({
  name: 'fake-runtime',
  apply(core) {
    core.hooks.discover.tapPromise('fake-runtime', async (found) => [...found, fakeTarget('a'), fakeTarget('broken')]);
    core.hooks.checkStaleness.tapPromise('fake-source', async (target) =>
      target.name === 'broken'
        ? { source: 'registry', stale: false, error: 'unreachable' }
        : { source: 'registry', stale: true, latestTag: '2.0.0', note: 'from the source.' },
    );
  },
});

const annotator = definePlugin({
  name: 'annotator',
  apply(core) {
    core.hooks.review.tap('annotator', (staleness, target) => ({ ...staleness, note: `${staleness.note ?? ''} about ${target.name}.`.trim() }));
  },
});

t.test('a reviewer adds to the answer the check reports; errors are left alone', async (t) => {
  const tw = await createTidewatch({ plugins: [runtime, annotator] });
  t.teardown(() => tw.close());
  const { results } = await tw.check();
  const by = Object.fromEntries(results.map((r) => [r.target.name, r.staleness]));
  t.equal(by.a?.note, 'from the source. about a.');
  t.equal(by.a?.stale, true);
  t.equal(by.broken?.note, undefined);
  t.equal(by.broken?.error, 'unreachable');
});

t.test('without a reviewer the answer is the source\'s own object', async (t) => {
  const tw = await createTidewatch({ plugins: [runtime] });
  t.teardown(() => tw.close());
  const { results } = await tw.check();
  t.equal(results.find((r) => r.target.name === 'a')?.staleness.note, 'from the source.');
});

// Named stages (docs/plugins.md#stages): a reviewer that reads what another found runs after it whatever the
// plugin order, as the release notes read the version the registry named.
const VERSION = defineFinding<string>('test-version', { summary: (v) => `version ${v}` });
const NOTES = defineFinding<string>('test-notes', { summary: (n) => n });

const explainer = definePlugin({
  name: 'explainer',
  apply(core) {
    core.hooks.review.tap({ name: 'explainer', stage: STAGES.review.explain }, (staleness) =>
      withFinding(staleness, NOTES, `notes for ${readFinding(staleness, VERSION) ?? 'no version'}`),
    );
  },
});

const describer = definePlugin({
  name: 'describer',
  apply(core) {
    core.hooks.review.tap({ name: 'describer', stage: STAGES.review.describe }, (staleness) => withFinding(staleness, VERSION, '2.0.0'));
  },
});

t.test('review stages: explain runs after describe, whichever plugin comes first', async (t) => {
  t.ok(STAGES.review.describe < STAGES.review.verify && STAGES.review.verify < STAGES.review.explain, 'describe, verify, explain');
  for (const plugins of [[runtime, explainer, describer], [runtime, describer, explainer]]) {
    const tw = await createTidewatch({ plugins });
    const { results } = await tw.check();
    await tw.close();
    const a = results.find((r) => r.target.name === 'a')?.staleness;
    t.equal(readFinding(a, NOTES), 'notes for 2.0.0', `order ${plugins.map((p) => p.name).join(', ')}`);
    t.same(a?.findings && Object.keys(a.findings), ['test-version', 'test-notes'], 'findings in the order written');
  }
});
