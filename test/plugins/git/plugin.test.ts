// The plugin's shape: its options schema, and its place before the real no-pull source.
import t from 'tap';
import { ConfigError, createTidewatch, isTidewatchError, errors } from '../../../core/index.js';
import { LOCAL_IMAGES } from '../../../contracts/index.js';
import { resolvePluginOptions as validatePluginOptions, usePlugin } from '../../../core/plugin.js';
import type { TidewatchPlugin } from '../../../core/index.js';
import { gitPlugin } from '../../../plugins/git/index.js';
import { noPullPlugin } from '../../../plugins/no-pull/index.js';
import { fakeTarget } from '../../helpers/targets.js';
import { gitTarget } from './harness.js';

t.test('options: defaults filled, unknown or mistyped options refused', async (t) => {
  t.same(validatePluginOptions(gitPlugin, {}), {
    token: '',
    username: '',
    password: '',
    credentialHosts: ['github.com'],
    noPull: false,
    labelTakePrecedence: false,
    githubApiUrl: 'https://api.github.com',
    requestTimeoutMs: 30_000,
  });
  t.doesNotThrow(() => validatePluginOptions(gitPlugin, { token: undefined, username: 'u', password: 'p' }), 'unset secrets may be passed as undefined');
  for (const bad of [{ tokn: 'x' }, { noPull: 'yes' }, { requestTimeoutMs: 0 }, { githubApiUrl: 'ftp://x' }]) {
    const err = (() => {
      try {
        validatePluginOptions(gitPlugin, bad);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    t.ok(isTidewatchError(err, errors.pluginOptions), JSON.stringify(bad));
  }
  t.equal(gitPlugin.name, 'git');
});

t.test('the git token never crosses plain http to a non-loopback GitHub API root (exit 2 naming the option)', async (t) => {
  const err = await createTidewatch({ plugins: [usePlugin(gitPlugin, { token: 'ghp_secret', githubApiUrl: 'http://ghe.example/api/v3' })] }).then(
    (tw) => tw.close().then(() => undefined),
    (e: unknown) => e,
  );
  t.ok(err instanceof ConfigError, 'a configuration error');
  t.match(String((err as Error).message), /--git-github-api-url/);
  t.notMatch(String((err as Error).message), /ghp_secret/, 'the token is not echoed');
  const loopback = await createTidewatch({ plugins: [usePlugin(gitPlugin, { token: 'ghp_secret', githubApiUrl: 'http://127.0.0.1:9/api' })] });
  t.ok(loopback, 'http to a loopback address is allowed (tests, local fakes)');
  await loopback.close();
});

t.test('the git source answers before the no-pull source, whatever the plugin order', async (t) => {
  const targets = [
    gitTarget('git-np', 'http://127.0.0.1:9/never-contacted.git', { commit: 'a'.repeat(40) }),
    fakeTarget('registry-np'),
  ];
  const discovery: TidewatchPlugin<object> = {
    name: 'stub-discovery',
    apply(core) {
      core.hooks.discover.tapPromise('stub-discovery', async (found) => [...found, ...targets]);
      // no-pull needs a runtime's local images; this one has none.
      core.services.provide(LOCAL_IMAGES, { inspectImage: async () => undefined });
    },
  };
  const tw = await createTidewatch({
    plugins: [discovery, usePlugin(noPullPlugin, { noPull: true }), usePlugin(gitPlugin, { noPull: true })],
  });
  t.teardown(() => tw.close());
  const report = await tw.check();
  const byName = new Map(report.results.map((r) => [r.target.name, r.staleness]));
  t.match(byName.get('git-np'), { source: 'git', stale: false, unchecked: true });
  t.match(byName.get('registry-np'), { source: 'registry', error: /^no-pull:/ }, 'the no-pull source took the other one');
});
