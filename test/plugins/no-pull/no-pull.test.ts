// The no-pull source with stub local images: label and flag rules, the watch split, errors, and that
// it answers before the registry source whatever the plugin order.
import t from 'tap';
import { createTidewatch, type Target, type TidewatchPlugin } from '../../../core/index.js';
import { LOCAL_IMAGES } from '../../../contracts/index.js';
import { noPullPlugin, type NoPullPluginOptions } from '../../../plugins/no-pull/index.js';
import { fakeTarget } from '../../helpers/targets.js';

const ID_A = `sha256:${'a'.repeat(64)}`;
const ID_B = `sha256:${'b'.repeat(64)}`;

function target(name: string, image: string, imageId: string, labels: Record<string, string> = {}): Target {
  return fakeTarget(name, { runtime: 'stub', image, imageId, labels });
}

interface Setup {
  targets: Target[];
  options: NoPullPluginOptions;
  local?: Record<string, string | Error>;
  provide?: boolean;
}

async function run(setup: Setup) {
  const inspected: string[] = [];
  const reachedRegistry: string[] = [];
  const plugins: TidewatchPlugin<object>[] = [
    {
      name: 'stub-runtime',
      apply(core) {
        core.hooks.discover.tapPromise('stub-runtime', async (found) => [...found, ...setup.targets]);
        if (setup.provide === false) return;
        core.services.provide(LOCAL_IMAGES, {
          async inspectImage(ref) {
            inspected.push(ref);
            const v = setup.local?.[ref];
            if (v instanceof Error) throw v;
            return v === undefined ? undefined : { id: v };
          },
        });
      },
    },
    // Applied before no-pull on purpose: the stages, not the order, put no-pull first.
    {
      name: 'registry',
      apply(core) {
        core.hooks.checkStaleness.tapPromise('registry', async (tg) => {
          reachedRegistry.push(tg.name);
          return { source: 'registry', stale: false, latestDigest: 'sha256:remote' };
        });
      },
    },
    { plugin: noPullPlugin, options: setup.options } as unknown as TidewatchPlugin<object>,
  ];
  const tw = await createTidewatch({ plugins });
  const report = await tw.check();
  await tw.close();
  const by = (name: string) => report.results.find((r) => r.target.name === name)?.staleness;
  return { by, inspected, reachedRegistry };
}

t.test('global no-pull compares the running image with the local tag', async (t) => {
  const { by, inspected, reachedRegistry } = await run({
    options: { noPull: true },
    targets: [
      target('same', 'app:1', ID_A),
      target('same-too', 'app:1', ID_A),
      target('newer', 'app:2', ID_A),
      target('gone', 'app:3', ID_A),
      target('broken', 'app:4', ID_A),
    ],
    local: { 'app:1': ID_A, 'app:2': ID_B, 'app:4': new Error('engine unreachable') },
  });
  t.same(by('same'), { source: 'registry', stale: false, latestImageId: ID_A });
  t.same(by('newer'), { source: 'registry', stale: true, latestImageId: ID_B });
  t.match(by('gone'), { stale: false, error: /no local image app:3/ });
  t.match(by('broken'), { stale: false, error: /engine unreachable/ });
  t.same(reachedRegistry, [], 'the registry source is never asked');
  t.equal(inspected.filter((r) => r === 'app:1').length, 1, 'one inspection per image per run');
});

t.test('label and flag: OR by default, the label alone with label precedence', async (t) => {
  const targets = [
    target('label-on', 'app:1', ID_A, { 'tidewatch.no-pull': 'true' }),
    target('wt-label-on', 'app:1', ID_A, { 'com.centurylinklabs.watchtower.no-pull': '1' }),
    target('label-off', 'app:1', ID_A, { 'tidewatch.no-pull': 'false' }),
    target('unset', 'app:1', ID_A),
    target('junk', 'app:1', ID_A, { 'tidewatch.no-pull': 'maybe' }),
  ];
  const local = { 'app:1': ID_A };
  let r = await run({ targets, local, options: { noPull: false } });
  t.same(r.reachedRegistry.sort(), ['junk', 'label-off', 'unset']);
  r = await run({ targets, local, options: { noPull: true } });
  t.same(r.reachedRegistry, [], 'flag on: label false does not override without precedence');
  r = await run({ targets, local, options: { noPull: true, labelTakePrecedence: true } });
  t.same(r.reachedRegistry, ['label-off'], 'with precedence a set label decides');
  r = await run({ targets, local, options: { noPull: false, labelTakePrecedence: true } });
  t.same(r.reachedRegistry.sort(), ['junk', 'label-off', 'unset']);
});

t.test('Git-watched targets are left to the git source', async (t) => {
  const r = await run({
    targets: [target('git', 'app:1', ID_A, { 'tidewatch.git.repo': 'https://example.invalid/r.git' })],
    local: { 'app:1': ID_B },
    options: { noPull: true },
  });
  t.same(r.reachedRegistry, ['git']);
  t.same(r.inspected, []);
});

t.test('without a runtime that inspects local images, start-up fails naming the service', async (t) => {
  const err = await run({ targets: [target('x', 'app:1', ID_A)], options: { noPull: true }, provide: false }).catch((e: unknown) => e);
  t.match(err, { code: 'TW_ERR_SERVICE_MISSING', message: /plugin no-pull needs the local-images service/ });
});

t.test('options are schema-checked', async (t) => {
  await t.rejects(createTidewatch({ plugins: [{ plugin: noPullPlugin, options: { noPull: 'yes' } as unknown as NoPullPluginOptions }] }), /noPull/);
});
