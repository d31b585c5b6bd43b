// The plugin contract: typed services with one provider each and required services checked at start-up,
// options declared once (the same default for an embedder as on the command line), rules between a
// plugin's options, and every option of every plugin in the /v1/config view with secrets redacted.
import t from 'tap';
import {
  createTidewatch,
  defineService,
  definePlugin,
  option,
  optionsView,
  GIT_PATH,
  REGISTRY_PATH,
  type TidewatchPlugin,
} from '../../core/index.js';
import { fakeTarget } from '../helpers/targets.js';
import { resolvePluginOptions } from '../../core/plugin.js';
import { dockerPlugin } from '../../plugins/docker/index.js';
import { resolveConfig } from '../../server/config/index.js';

interface Clock {
  now(): number;
}
const CLOCK = defineService<Clock>('test-clock');

const provider = (name: string): TidewatchPlugin<object> =>
  definePlugin({ name, apply: (core) => core.services.provide(CLOCK, { now: () => 42 }) });

t.test('a service has one provider: a second one is an error naming both', async (t) => {
  const err = await createTidewatch({ plugins: [provider('first'), provider('second')] }).catch((e: unknown) => e);
  t.match(err, { code: 'TW_ERR_SERVICE_CONFLICT', message: /service test-clock is provided by plugin first already; plugin second cannot provide it too/ });
});

t.test('a required service nobody provides fails start-up; provided, it is typed', async (t) => {
  let seen: number | undefined;
  const consumer = definePlugin({
    name: 'consumer',
    requires: [CLOCK],
    apply(core) {
      core.hooks.discover.tapPromise('consumer', async (targets) => {
        seen = core.services.require(CLOCK).now();
        return targets;
      });
    },
  });
  const err = await createTidewatch({ plugins: [consumer] }).catch((e: unknown) => e);
  t.match(err, { code: 'TW_ERR_SERVICE_MISSING', message: 'plugin consumer needs the test-clock service, which no loaded plugin provides' });
  // The order of plugins does not matter: requirements are checked once all are applied.
  const tw = await createTidewatch({ plugins: [consumer, provider('clock')] });
  t.teardown(() => tw.close());
  await tw.targets();
  t.equal(seen, 42);
});

t.test('one declaration, one default: the grace period for an embedder and on the command line', async (t) => {
  const embedded = resolvePluginOptions(dockerPlugin, {});
  const resolved = resolveConfig({ argv: [], env: {}, cwd: '/' });
  const fromCli = resolved.plugins.find((p) => p.plugin.name === 'docker')?.options as { gracePeriodMs: number };
  t.equal(embedded.gracePeriodMs, 10_000);
  t.equal(fromCli.gracePeriodMs, embedded.gracePeriodMs);
  t.equal(resolved.config['updateGracePeriod'], 10_000);
});

t.test("a plugin's check refuses a bad combination before any plugin is applied", async (t) => {
  const applied: string[] = [];
  const first = definePlugin({ name: 'first', apply: () => void applied.push('first') });
  const err = await createTidewatch({
    plugins: [first, { plugin: dockerPlugin, options: { monitorOnly: true, rollingRestart: true } }],
  }).catch((e: unknown) => e);
  t.match(err, { code: 'TW_ERR_CONFIG', option: 'rolling-restart', message: /--monitor-only and --rolling-restart cannot be used together/ });
  t.same(applied, [], 'nothing was applied');
});

t.test('the options view: every plugin, declaration order, secrets redacted, durations in Go form', async (t) => {
  const secretive = definePlugin({
    name: 'secretive',
    options: {
      password: option.string({ flag: 'secretive-password', secret: true, group: 'Test', description: 'A password.' }),
      timeout: option.duration({ flag: 'secretive-timeout', default: 90_000, group: 'Test', description: 'A timeout.' }),
      off: option.string({ flag: 'secretive-unset', secret: true, group: 'Test', description: 'An unset secret.' }),
    },
    apply() {},
  });
  const tw = await createTidewatch({ plugins: [{ plugin: secretive, options: { password: 'hunter2' } }] });
  t.teardown(() => tw.close());
  const view = optionsView(tw.options);
  t.same(view, { secretive_password: '<redacted>', secretive_timeout: '1m30s', secretive_unset: '' });
  t.notMatch(JSON.stringify(view), /hunter2/);
});

t.test('the watch split: sources answer on their own path; a failure is reported on the target\'s path', async (t) => {
  const targets = [
    fakeTarget('plain'),
    fakeTarget('from-git', { labels: { 'tidewatch.git.repo': 'https://git.example/a' } }),
    fakeTarget('custom', { labels: { 'acme.release': '1' } }),
  ];
  const asked: string[] = [];
  const plugins: TidewatchPlugin<object>[] = [
    definePlugin({ name: 'stub-runtime', apply: (core) => void core.hooks.discover.tapPromise('stub-runtime', async (f) => [...f, ...targets]) }),
    definePlugin({
      name: 'acme',
      apply(core) {
        core.claimWatchPath('acme', (target) => target.labels['acme.release'] !== undefined);
        core.hooks.checkStaleness.tapPromise('acme', async (target) => {
          if (core.watchPath(target) !== 'acme') return undefined;
          throw new Error('acme is down');
        });
      },
    }),
    definePlugin({
      name: 'stub-registry',
      apply(core) {
        core.hooks.checkStaleness.tapPromise('stub-registry', async (target) => {
          if (core.watchPath(target) !== REGISTRY_PATH) return undefined;
          asked.push(target.name);
          return { source: REGISTRY_PATH, stale: false };
        });
      },
    }),
  ];
  const tw = await createTidewatch({ plugins });
  t.teardown(() => tw.close());
  const byName = new Map((await tw.check()).results.map((r) => [r.target.name, r.staleness]));
  t.same(asked, ['plain'], 'the registry source saw only its own path');
  t.match(byName.get('from-git'), { source: GIT_PATH, error: /no staleness source for git-watched containers is loaded/ });
  t.match(byName.get('custom'), { source: 'acme', error: /acme is down/ });
});
