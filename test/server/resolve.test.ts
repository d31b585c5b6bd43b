import { join } from 'node:path';

import t from 'tap';

import { ConfigError, configView, resolveConfig, type ResolvedConfig } from '../../server/config/index.js';
import { effectiveEndpoints, type HttpApiOptionValues } from '../../plugins/http-api/options.js';

const SECRET = 'S3kr1t-t0ken-value';
const EVENTS_SECRET = 'ev3nts-s3cret-value';

function run(argv: string[] = [], env: NodeJS.ProcessEnv = {}, cwd = '/'): ResolvedConfig {
  return resolveConfig({ argv, env, cwd });
}

/** The ConfigError thrown by `fn`; fails the test when none (or another error) is thrown. */
type Asserts = Pick<typeof t, 'ok' | 'equal' | 'notMatch' | 'fail'>;

function configError(t: Asserts, fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    t.ok(err instanceof ConfigError, 'a ConfigError');
    const e = err as ConfigError;
    t.equal(e.exitCode, 2);
    t.notMatch(e.message, /[\r\n]/, 'one line');
    return e;
  }
  t.fail('expected a ConfigError');
  return new ConfigError('none');
}

t.test('defaults', async (t) => {
  const r = run();
  t.equal(r.config.interval, 86_400_000);
  t.equal(r.config.stopTimeout, 30_000);
  t.same(r.config.host, ['unix:///var/run/docker.sock']);
  t.equal(r.config.useComposeDependsOn, true);
  t.equal(r.config.httpApiHost, '0.0.0.0');
  t.equal(r.config.httpApiPort, 8080);
  t.equal(r.config.httpApiRateLimit, 60);
  t.equal(r.config.httpApiProxyHeader, 'X-Forwarded-For');
  t.equal(r.config.httpApiCheckTimeout, 300_000);
  t.equal(r.config.httpApiUpdateTimeout, 600_000);
  t.equal(r.config.httpApiEventsMaxSubscribers, 1000);
  t.equal(r.config.registryConcurrency, 20);
  t.equal(r.config.cooldownDelay, 0);
  t.equal(r.config.logLevel, 'info');
  t.equal(r.config.logFormat, 'auto');
  t.same(r.config.httpApiEndpoints, []);
  t.same(r.names, []);
  t.same(r.aliasesUsed, []);
  t.equal(r.sources.interval, 'default');
  t.equal(r.help, undefined);
  t.equal(r.version, undefined);
});

t.test('precedence: flag > environment > config file > default', async (t) => {
  const dir = t.testdir({ 'tw.yaml': 'interval: 1h\ncleanup: true\nscope: from-file\n' });
  const file = join(dir, 'tw.yaml');
  const env = { TIDEWATCH_CONFIG: file, TIDEWATCH_INTERVAL: '2h', TIDEWATCH_CLEANUP: 'false' };

  let r = run(['--interval', '3h', '--cleanup'], env);
  t.equal(r.config.interval, 3 * 3_600_000);
  t.equal(r.config.cleanup, true);
  t.equal(r.config.scope, 'from-file');
  t.same([r.sources.interval, r.sources.cleanup, r.sources.scope, r.sources['run-once']], ['flag', 'flag', 'file', 'default']);

  r = run([], env);
  t.equal(r.config.interval, 2 * 3_600_000);
  t.equal(r.config.cleanup, false);
  t.same([r.sources.interval, r.sources.cleanup], ['env', 'env']);

  r = run([], { TIDEWATCH_CONFIG: file });
  t.equal(r.config.interval, 3_600_000);
  t.equal(r.config.cleanup, true);
  t.equal(r.sources.interval, 'file');
  t.equal(r.config.config, file);
  t.equal(r.sources.config, 'env');

  r = run(['--config', file], { TIDEWATCH_INTERVAL: '' }); // empty variables are unset
  t.equal(r.config.interval, 3_600_000);
  t.equal(r.sources.config, 'flag');

  r = run();
  t.equal(r.config.interval, 86_400_000);
  t.equal(r.sources.interval, 'default');
});

t.test('WATCHTOWER_ aliases', async (t) => {
  let r = run([], {
    WATCHTOWER_POLL_INTERVAL: '300',
    WATCHTOWER_TIMEOUT: '10',
    WATCHTOWER_LIFECYCLE_HOOKS: 'true',
    WATCHTOWER_CLEANUP: '1',
    WATCHTOWER_INTERVAL: '7', // not Watchtower's name: not read
  });
  t.equal(r.config.interval, 300_000);
  t.equal(r.config.stopTimeout, 10_000);
  t.equal(r.config.enableLifecycleHooks, true);
  t.equal(r.config.cleanup, true);
  t.same(r.aliasesUsed.sort(), ['WATCHTOWER_CLEANUP', 'WATCHTOWER_LIFECYCLE_HOOKS', 'WATCHTOWER_POLL_INTERVAL', 'WATCHTOWER_TIMEOUT']);
  t.equal(r.sources.interval, 'env');

  // TIDEWATCH_ wins over the alias, and the alias is then not reported as used.
  r = run([], { TIDEWATCH_INTERVAL: '1m', WATCHTOWER_POLL_INTERVAL: '300', TIDEWATCH_CLEANUP: '', WATCHTOWER_CLEANUP: 'true' });
  t.equal(r.config.interval, 60_000);
  t.equal(r.config.cleanup, true);
  t.same(r.aliasesUsed, ['WATCHTOWER_CLEANUP']);

  // A flag wins over both.
  r = run(['-i', '5m'], { WATCHTOWER_POLL_INTERVAL: '300' });
  t.equal(r.config.interval, 300_000);
  t.same(r.aliasesUsed, []);
  t.equal(r.sources.interval, 'flag');
});

t.test('durations: digits alone are seconds', async (t) => {
  t.equal(run([], { TIDEWATCH_STOP_TIMEOUT: '45' }).config.stopTimeout, 45_000);
  t.equal(run([], { TIDEWATCH_INTERVAL: '86400' }).config.interval, 86_400_000);
  t.equal(run(['--interval', '300']).config.interval, 300_000, "Watchtower's --interval took seconds");
  t.equal(run([], { TIDEWATCH_STOP_TIMEOUT: '1m30s' }).config.stopTimeout, 90_000);
  t.equal(run(['--http-api-check-timeout', '0']).config.httpApiCheckTimeout, 300_000, '0 means the default');
  t.equal(run(['--update-grace-period', '0']).config.updateGracePeriod, 0);
  t.equal(run(['--cooldown-delay', '3d12h']).config.cooldownDelay, 3.5 * 86_400_000);
  let e = configError(t, () => run(['--stop-timeout', '-5s']));
  t.match(e.message, /^invalid value "-5s" for --stop-timeout \(TIDEWATCH_STOP_TIMEOUT\): .*negative/);
  e = configError(t, () => run([], { WATCHTOWER_TIMEOUT: '-5' }));
  t.match(e.message, /for --stop-timeout \(WATCHTOWER_TIMEOUT\)/, 'names the variable actually read');
  e = configError(t, () => run(['--interval', '0']));
  t.match(e.message, /greater than zero/);
  // How long a plan may be applied (docs/plans.md): 15m unless said, never zero.
  t.equal(run([]).config.planTtl, 15 * 60_000);
  t.equal(run([], { TIDEWATCH_PLAN_TTL: '90s' }).config.planTtl, 90_000);
  e = configError(t, () => run(['--plan-ttl', '0s']));
  t.match(e.message, /^invalid value "0s" for --plan-ttl \(TIDEWATCH_PLAN_TTL\): .*greater than zero/);
});

t.test('booleans: Go set, --flag=false, bare flag', async (t) => {
  t.equal(run(['--cleanup']).config.cleanup, true);
  t.equal(run(['--cleanup=false'], { TIDEWATCH_CLEANUP: 'true' }).config.cleanup, false);
  t.equal(run(['--use-compose-depends-on=f']).config.useComposeDependsOn, false);
  t.equal(run(['-c=false']).config.cleanup, false);
  for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) t.equal(run([], { TIDEWATCH_CLEANUP: v }).config.cleanup, true, v);
  for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) {
    t.equal(run([], { TIDEWATCH_USE_COMPOSE_DEPENDS_ON: v }).config.useComposeDependsOn, false, v);
  }
  const e = configError(t, () => run([], { TIDEWATCH_CLEANUP: 'yes' }));
  t.equal(
    e.message,
    'invalid value "yes" for --cleanup (TIDEWATCH_CLEANUP): expected a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False',
  );
  t.equal(e.option, 'cleanup');
  configError(t, () => run(['--cleanup=yes']));

  // pflag: a bare boolean flag never takes the next argument, so it stays a container name...
  const r = run(['--cleanup', 'nginx', '-cR', '/redis']);
  t.equal(r.config.cleanup, true);
  t.equal(r.config.runOnce, true);
  t.same(r.names, ['nginx', 'redis']);
  // ...except a bool literal, which was surely meant as the value.
  t.match(configError(t, () => run(['--cleanup', 'false'])).message, /--cleanup=false/);
});

t.test('argv forms', async (t) => {
  let r = run(['-i5m', '-t=10s', '--scope=a', '-ci', '1h', '--', '--not-a-flag', '/web']);
  t.equal(r.config.interval, 3_600_000);
  t.equal(r.config.stopTimeout, 10_000);
  t.equal(r.config.scope, 'a');
  t.equal(r.config.cleanup, true);
  t.same(r.names, ['--not-a-flag', 'web']);

  r = run(['-x', 'a,b', '--disable-containers', 'c d', '--disable-containers=/e']);
  t.same(r.config.disableContainers, ['a', 'b', 'c', 'd', 'e'], 'repeated list flags accumulate');
  r = run(['--scope', 'a', '--scope', 'b']);
  t.equal(r.config.scope, 'b', 'other flags keep the last value');

  t.match(configError(t, () => run(['--bogus'])).message, /^unknown flag --bogus/);
  t.match(configError(t, () => run(['--bogus=1'])).message, /^unknown flag --bogus/);
  t.match(configError(t, () => run(['-q'])).message, /unknown shorthand flag -q/);
  t.match(configError(t, () => run(['--interval'])).message, /--interval needs a value/);
});

t.test('--help and --version', async (t) => {
  const h = run(['--cleanup', '--help', '--bogus'], { TIDEWATCH_CLEANUP: 'nonsense' });
  t.type(h.help, 'string');
  t.match(h.help, /--http-api-endpoints/);
  t.equal(run(['-h']).help, h.help);
  t.equal(run(['--version']).version, true);
  t.equal(run(['--', '--help']).help, undefined, 'after -- it is a name');
});

t.test('secrets from files', async (t) => {
  const dir = t.testdir({ token: `${SECRET}\n`, events: `  ${EVENTS_SECRET}  \n`, urls: '# comment\nslack://a/b\n\ngeneric://x?y=1,2\n' });
  let r = run(['--http-api-endpoints', 'update,events', '--http-api-token', join(dir, 'token')], {
    TIDEWATCH_HTTP_API_EVENTS_TOKEN: 'events', // relative to cwd
    WATCHTOWER_NOTIFICATION_URL: join(dir, 'urls'),
  }, dir);
  t.equal(r.config.httpApiToken, SECRET);
  t.equal(r.config.httpApiEventsToken, EVENTS_SECRET);
  t.same(r.config.notificationUrl, ['slack://a/b', 'generic://x?y=1,2']);

  // A value that is not an existing file is the secret itself.
  r = run(['--git-token', SECRET], {}, dir);
  t.equal(r.config.gitToken, SECRET);
  const view = JSON.stringify(configView(r));
  t.notMatch(view, SECRET);
  t.match(view, /"git_token":"<redacted>"/);
});

t.test('a secret path with no file, or an empty file: a warning naming the option, never the value', async (t) => {
  const dir = t.testdir({ empty: '\n', token: `${SECRET}\n` });
  const missing = join(dir, 'not-mounted-token');
  let r = run(['--http-api-endpoints', 'update', '--http-api-token', missing], {}, dir);
  t.equal(r.config.httpApiToken, missing, 'the path is the token, as the spec says');
  const line = r.warnings.find((w) => w.includes('--http-api-token'));
  t.match(line, /--http-api-token \(TIDEWATCH_HTTP_API_TOKEN\) is an absolute path but no file is there/);
  t.notMatch(r.warnings.join('\n'), 'not-mounted-token', 'the value is never shown');

  r = run(['--http-api-endpoints', 'events', '--http-api-token', SECRET], { TIDEWATCH_HTTP_API_EVENTS_TOKEN: dir }, dir);
  t.match(r.warnings.join('\n'), /--http-api-events-token \(TIDEWATCH_HTTP_API_EVENTS_TOKEN\) is an absolute path but it is not a regular file/, 'a directory, named by its variable');

  r = run(['--git-token', join(dir, 'empty')], {}, dir);
  t.match(r.warnings, [/the secret file given for --git-token \(TIDEWATCH_GIT_TOKEN\) is empty/]);
  t.notMatch(r.warnings.join('\n'), dir, 'no path in the warning');

  r = run(['--http-api-endpoints', 'update', '--http-api-token', join(dir, 'token')], {}, dir);
  t.same(r.warnings.filter((w) => /secret|absolute path/.test(w)), [], 'a good secret file: no warning');
  r = run(['--http-api-endpoints', 'update', '--http-api-token', SECRET], {}, dir);
  t.same(r.warnings.filter((w) => /secret|absolute path/.test(w)), [], 'a token given as itself: no warning');
});

t.test('secrets never appear in errors', async (t) => {
  const cases: Array<[string[], NodeJS.ProcessEnv]> = [
    [['--http-api-token', SECRET, '--http-api-port', '99999'], {}],
    [['--http-api-token', SECRET, '--http-api-endpoints', 'events'], {}],
    [['--http-api-token', SECRET, '--http-api-tls-cert', '/nonexistent.pem'], {}],
    [['--http-api-token', SECRET, '--interval', '5x'], { TIDEWATCH_HTTP_API_EVENTS_TOKEN: EVENTS_SECRET }],
    [['--http-api-events-token', EVENTS_SECRET, '--http-api-endpoints', 'events,update'], {}],
    [['--notification-url', SECRET, '--porcelain', 'v2'], {}],
  ];
  for (const [argv, env] of cases) {
    const e = configError(t, () => run(argv, env));
    t.notMatch(e.message, SECRET);
    t.notMatch(e.message, EVENTS_SECRET);
  }
});

t.test('config files: YAML and JSON, kebab-case and camelCase keys', async (t) => {
  const dir = t.testdir({
    'a.yaml': [
      'http-api-endpoints: [update, metrics]',
      'httpApiToken: tok',
      'http_api_port: 9090',
      'stopTimeout: 45',
      'disable-containers:',
      '  - /one',
      '  - two',
      'label-enable: true',
      'schedule: "0 0 4 * * *"',
      'scope: ~',
      '',
    ].join('\n'),
    'b.json': JSON.stringify({ cooldownDelay: '2w', 'log-level': 'panic', logFormat: 'JSON', noPull: 'T', plugins: ['./p.js', 'tw-plugin-x'] }),
    'empty.yaml': '',
    'bad-key.yaml': 'intervall: 5m\n',
    'bad-value.yaml': 'interval: soon\n',
    'nested.yaml': 'interval: { a: 1 }\n',
    'list.yaml': '- a\n',
    'config.yaml': 'config: other.yaml\n',
    'broken.json': '{"interval":',
  });
  let r = run(['--config', 'a.yaml'], {}, dir);
  t.same(r.config.httpApiEndpoints, ['metrics', 'update']);
  t.equal(r.config.httpApiToken, 'tok');
  t.equal(r.config.httpApiPort, 9090);
  t.equal(r.config.stopTimeout, 45_000);
  t.same(r.config.disableContainers, ['one', 'two']);
  t.equal(r.config.labelEnable, true);
  t.equal(r.config.schedule, '0 0 4 * * *');
  t.equal(r.sources.scope, 'default', 'null leaves the default');
  t.equal(r.config.config, join(dir, 'a.yaml'));

  r = run([], { TIDEWATCH_CONFIG: join(dir, 'b.json') });
  t.equal(r.config.cooldownDelay, 14 * 86_400_000);
  t.equal(r.config.logLevel, 'fatal');
  t.equal(r.config.logFormat, 'json');
  t.equal(r.config.noPull, true);
  t.same(r.config.plugins, ['./p.js', 'tw-plugin-x']);

  t.same(run(['--config', join(dir, 'empty.yaml')]).sources.interval, 'default');
  t.match(configError(t, () => run(['--config', 'bad-key.yaml'], {}, dir)).message, /unknown option "intervall" in config file/);
  t.match(
    configError(t, () => run(['--config', 'bad-value.yaml'], {}, dir)).message,
    /^invalid value "soon" for --interval \(key "interval" in .*bad-value\.yaml\): expected a Go duration/,
  );
  t.match(configError(t, () => run(['--config', 'nested.yaml'], {}, dir)).message, /got an object/);
  t.match(configError(t, () => run(['--config', 'list.yaml'], {}, dir)).message, /must hold a mapping/);
  t.match(configError(t, () => run(['--config', 'config.yaml'], {}, dir)).message, /cannot be set inside/);
  t.match(configError(t, () => run(['--config', 'broken.json'], {}, dir)).message, /not valid YAML or JSON/);
  t.match(configError(t, () => run(['--config', 'missing.yaml'], {}, dir)).message, /cannot read config file .*ENOENT/);
});

t.test('cross-option rules', async (t) => {
  // interval (non-default) with schedule
  let e = configError(t, () => run(['--interval', '5m', '--schedule', '0 0 * * * *']));
  t.match(e.message, /--interval \(TIDEWATCH_INTERVAL\) "5m0s" and --schedule \(TIDEWATCH_SCHEDULE\) "0 0 \* \* \* \*" cannot be used together/);
  t.equal(run(['--schedule', "'@daily'"]).config.schedule, '@daily', 'quotes trimmed, default interval allowed');
  t.equal(run(['--interval', '24h', '--schedule', '@hourly']).config.schedule, '@hourly');

  e = configError(t, () => run(['-m', '--rolling-restart']));
  t.match(e.message, /--monitor-only .* and --rolling-restart .* cannot be used together/);

  const dir = t.testdir({ 'c.pem': 'cert', 'k.pem': 'key' });
  e = configError(t, () => run(['--http-api-tls-cert', 'c.pem'], {}, dir));
  t.match(e.message, /^--http-api-tls-key \(TIDEWATCH_HTTP_API_TLS_KEY\) is missing/);
  t.equal(e.option, 'http-api-tls-key');
  e = configError(t, () => run([], { TIDEWATCH_HTTP_API_TLS_KEY: 'k.pem' }, dir));
  t.match(e.message, /^--http-api-tls-cert \(TIDEWATCH_HTTP_API_TLS_CERT\) is missing/);
  const r = run(['--http-api-tls-cert', 'c.pem', '--http-api-tls-key', 'k.pem'], {}, dir);
  t.equal(r.config.httpApiTlsCert, join(dir, 'c.pem'));
  e = configError(t, () => run(['--http-api-tls-cert', 'c.pem', '--http-api-tls-key', 'nope.pem'], {}, dir));
  t.match(e.message, /--http-api-tls-key .*ENOENT/);

  for (const ep of ['update', 'check', 'metrics', 'containers', 'config', 'history', 'images', 'audit', 'rollback']) {
    e = configError(t, () => run(['--http-api-endpoints', ep]));
    t.match(e.message, /^--http-api-token \(TIDEWATCH_HTTP_API_TOKEN\) is required/, ep);
    t.equal(e.option, 'http-api-token');
  }
  e = configError(t, () => run(['--http-api-update']));
  t.match(e.message, /--http-api-token/, 'deprecated switches count too');
  e = configError(t, () => run(['--http-api-endpoints', 'events']));
  t.match(e.message, /^--http-api-events-token \(TIDEWATCH_HTTP_API_EVENTS_TOKEN\) is required/);
  t.same(run(['--http-api-endpoints', 'health,swagger']).config.httpApiEndpoints, ['health', 'swagger'], 'no token needed');
});

t.test('--http-api-endpoints', async (t) => {
  const tokens = { TIDEWATCH_HTTP_API_TOKEN: 'a', TIDEWATCH_HTTP_API_EVENTS_TOKEN: 'b' };
  const all = ['agents', 'approvals', 'audit', 'check', 'config', 'containers', 'dashboard', 'events', 'health', 'history', 'hooks', 'images', 'metrics', 'rollback', 'rollouts', 'snapshots', 'swagger', 'tokens', 'update'];
  t.same(run(['--http-api-endpoints', 'all'], tokens).config.httpApiEndpoints, all);
  t.same(run([], { ...tokens, WATCHTOWER_HTTP_API_ENDPOINTS: 'ALL' }).config.httpApiEndpoints, all);
  t.same(run(['--http-api-endpoints', 'Update, check  update'], tokens).config.httpApiEndpoints, ['check', 'update']);
  t.same(run(['--http-api-endpoints='], tokens).config.httpApiEndpoints, [], 'empty: API off');
  // Watchtower's deprecated switches add their endpoint (the HTTP API plugin folds them in).
  const legacy = run(['--http-api-metrics', '--http-api-containers', '--http-api-endpoints', 'swagger'], tokens).plugins.find((p) => p.plugin.name === 'http-api')!;
  t.same(effectiveEndpoints(legacy.options as HttpApiOptionValues), [
    'containers',
    'metrics',
    'swagger',
  ]);

  let e = configError(t, () => run(['--http-api-endpoints', 'bogus']));
  t.match(e.message, /^invalid value "bogus" for --http-api-endpoints \(TIDEWATCH_HTTP_API_ENDPOINTS\): unknown endpoint "bogus"; expected/);
  t.equal(e.option, 'http-api-endpoints');
  e = configError(t, () => run(['--http-api-endpoints', 'all,update']));
  t.match(e.message, /"all" must be used alone/);
  e = configError(t, () => run(['--http-api-endpoints', 'image'], tokens));
  t.match(e.message, /unknown endpoint "image"/);
  t.same(run(['--http-api-endpoints', 'images'], tokens).config.httpApiEndpoints, ['images'], "the fork's /v1/images");
});

t.test('--interval 5x: one line naming the option', async (t) => {
  const e = configError(t, () => run(['--interval', '5x']));
  t.equal(
    e.message,
    'invalid value "5x" for --interval (TIDEWATCH_INTERVAL): expected a Go duration such as 30s, 5m or 1h30m (digits alone are seconds)',
  );
  t.equal(e.option, 'interval');
  t.equal(e.code, 'TW_ERR_CONFIG');
});

t.test('several engines: --host repeated, TIDEWATCH_HOSTS as a list, TLS per entry (docs/hosts.md)', async (t) => {
  t.same(run(['-H', 'unix:///a.sock', '--host', 'tcp://127.0.0.1:2376']).config.host, ['unix:///a.sock', 'tcp://127.0.0.1:2376']);
  t.same(run([], { TIDEWATCH_HOSTS: 'unix:///a.sock, tcp://10.0.0.2:2376 tcp://[::1]:2376' }).config.host, [
    'unix:///a.sock',
    'tcp://10.0.0.2:2376',
    'tcp://[::1]:2376',
  ]);
  t.same(
    run(['-H', 'tcp://10.0.0.2:2376?cert-path=certs/b', '-H', 'tcp://10.0.0.3:2375?tlsverify=false'], {}, '/etc/tw').config.host,
    ['tcp://10.0.0.2:2376?tlsverify=true&cert-path=/etc/tw/certs/b', 'tcp://10.0.0.3:2375?tlsverify=false'],
    'a per-entry cert-path is made absolute and means TLS',
  );
  const cases: [string[], RegExp][] = [
    [['-H', 'ftp://x'], /invalid value "ftp:\/\/x" for --host \(TIDEWATCH_HOSTS\): "ftp:\/\/x": unknown scheme/],
    [['-H', 'tcp://a:1', '-H', 'tcp://a:1'], /"tcp:\/\/a:1" is listed twice/],
    [['-H', 'unix:///a.sock?tlsverify=1'], /TLS settings apply to tcp:\/\/ and https:\/\/ engines, not unix:\/\//],
    [['-H', 'http://a:2375?cert-path=/c'], /not http:\/\//],
    [['-H', 'tcp://a:2376?tlsverify=maybe'], /tlsverify=maybe is not a boolean/],
    [['-H', 'tcp://a:2376?ca=/x'], /unknown setting "ca"/],
    [['-H', 'tcp://a:2376?tlsverify=0&cert-path=/c'], /cert-path needs TLS/],
    [['-H', 'tcp://a:99999'], /not a host:port address/],
    [['-H', 'tcp://a:2376/path'], /only host:port may follow the scheme/],
  ];
  for (const [argv, message] of cases) t.match(configError(t, () => run(argv)).message, message, argv.join(' '));
});

t.test('Docker variables without prefix', async (t) => {
  let r = run([], { DOCKER_HOST: 'tcp://10.0.0.1:2376', DOCKER_TLS_VERIFY: '1', DOCKER_API_VERSION: '1.44', DOCKER_CERT_PATH: '/certs' });
  t.same(r.config.host, ['tcp://10.0.0.1:2376']);
  t.equal(r.config.tlsverify, true);
  t.equal(r.config.apiVersion, '1.44');
  t.equal(r.config.certPath, '/certs');
  t.equal(r.sources.host, 'env');
  t.same(r.aliasesUsed, []);
  r = run([], { DOCKER_HOST: 'tcp://a:1', TIDEWATCH_HOSTS: 'tcp://b:2', WATCHTOWER_HOSTS: 'tcp://c:3' });
  t.same(r.config.host, ['tcp://b:2'], 'TIDEWATCH_HOSTS first; WATCHTOWER_HOSTS is not a Watchtower variable');
  t.same(run(['-H', 'unix:///x.sock'], { DOCKER_HOST: 'tcp://a:1' }).config.host, ['unix:///x.sock']);
  t.equal(run([], { NO_COLOR: '' }).config.noColor, true, 'NO_COLOR by presence');
  t.equal(run([]).config.noColor, false);
});

t.test('other option values', async (t) => {
  t.equal(run(['--log-level', 'PANIC']).config.logLevel, 'fatal');
  t.equal(run(['--log-level', 'warning']).config.logLevel, 'warn');
  t.equal(run(['-d']).config.logLevel, 'debug');
  t.equal(run(['-d', '--log-level', 'trace']).config.logLevel, 'trace');
  t.equal(run(['--trace', '--log-level', 'error']).config.logLevel, 'trace');
  t.equal(run(['-l', 'LogFmt']).config.logFormat, 'logfmt');
  t.match(configError(t, () => run(['--log-level', 'loud'])).message, /expected one of trace, debug, info, warn, error, fatal/);
  t.equal(run(['--http-api-host', '[::1]']).config.httpApiHost, '::1');
  t.equal(run(['--http-api-host', '127.0.0.1']).config.httpApiHost, '127.0.0.1');
  t.match(configError(t, () => run(['--http-api-host', 'localhost'])).message, /--http-api-host .*IPv4 or IPv6/);
  t.match(configError(t, () => run(['--http-api-port', '65536'])).message, /from 0 to 65535/);
  t.match(configError(t, () => run(['--http-api-port', '80a'])).message, /from 0 to 65535/);
  t.equal(run(['--http-api-rate-limit', '0']).config.httpApiRateLimit, 0);
  t.match(configError(t, () => run(['--http-api-rate-limit', '-1'])).message, /integer >= 0/);
  t.match(configError(t, () => run(['--registry-concurrency', '0'])).message, /integer >= 1/);
  t.match(configError(t, () => run(['--lifecycle-uid', '-1'])).message, /--lifecycle-uid/);
  t.same(run(['--http-api-trusted-proxies', '10.0.0.1, 172.16.0.0/12 fd00::/8']).config.httpApiTrustedProxies, [
    '10.0.0.1',
    '172.16.0.0/12',
    'fd00::/8',
  ]);
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.1/x']) {
    t.match(configError(t, () => run(['--http-api-trusted-proxies', bad])).message, /not an IP address or CIDR/, bad);
  }
  t.same(run(['--http-api-cors-origins', 'https://Example.com/,*']).config.httpApiCorsOrigins, ['https://example.com', '*']);
  configError(t, () => run(['--http-api-cors-origins', 'example.com']));
  configError(t, () => run(['--http-api-proxy-header', 'X Bad']));
  t.same(run(['--plugins', './a.js,@x/tw-b c']).config.plugins, ['./a.js', '@x/tw-b', 'c']);
  t.equal(run(['--warn-on-head-failure', 'always']).config.warnOnHeadFailure, 'always');
  t.match(configError(t, () => run(['--porcelain', 'v2'])).message, /expected one of v1, json/);
  t.same(run(['--enable-containers-by-label', 'a=b c,d=']).config.enableContainersByLabel, ['a=b c', 'd=']);
});

t.test('the fork options: implemented ones read, and warnings', async (t) => {
  const r = run(['--no-startup-message', '-P', 'json', '--http-api-port', '9000', '--cpu-copy-mode', 'none'], {
    WATCHTOWER_WARN_ON_HEAD_FAILURE: 'never',
    WATCHTOWER_NOTIFICATION_MSTEAMS_HOOK_URL: 'https://teams.example/x',
    WATCHTOWER_EPHEMERAL_SELF_UPDATE: 'false',
  });
  t.equal(r.config.warnOnHeadFailure, 'never');
  t.equal(r.config.cpuCopyMode, 'none');
  t.equal(r.config.ephemeralSelfUpdate, false);
  t.equal(run([], { WATCHTOWER_EPHEMERAL_SELF_UPDATE: 'true' }).config.ephemeralSelfUpdate, true, "the fork's ephemeral self-update is read");
  t.equal(run(['--self-update-orchestrator']).config.selfUpdateOrchestrator, true, "the helper's internal flag is read");
  t.equal(r.config.notificationMsteamsHook, 'https://teams.example/x', "Watchtower's variable name for the legacy Teams hook");
  t.match(r.warnings.join('\n'), /options of the http-api plugin are set \(--http-api-port\) but the plugin is off/);
  t.equal(r.config.noStartupMessage, true);

  t.match(run(['-m', '--no-pull']).warnings.join('\n'), /--monitor-only with --no-pull/);
  // A plugin's own remarks come from its check, which the core logs when it applies the plugin.
  const docker = run(['-t', '500ms']).plugins.find((p) => p.plugin.name === 'docker')!;
  t.match(docker.plugin.check?.(docker.options as object, (k) => k), [/stopTimeoutMs is under a second/]);
  t.same(run([]).warnings, []);
});

t.test('more errors', async (t) => {
  t.match(configError(t, () => run(['--cooldown-delay', '5x'])).message, /^invalid value "5x" for --cooldown-delay \(TIDEWATCH_COOLDOWN_DELAY\): expected a delay/);
  t.match(configError(t, () => run(['-cRi'])).message, /flag -i needs a value <duration>/);
  const long = 'x'.repeat(1000);
  const e = configError(t, () => run(['--scope', 'a', '--log-level', `${long}\nsecond line`]));
  t.ok(e.message.length < 400, 'long values are shortened');
});

t.test("the fork's cooldown platform variables are read, and exit 2 beside --cooldown-platform", async (t) => {
  const r = run([], { WATCHTOWER_COOLDOWN_PLATFORM_ARCH: 'arm64', WATCHTOWER_COOLDOWN_PLATFORM_VARIANT: 'v8' });
  t.equal(r.config.cooldownPlatformArch, 'arm64');
  t.equal(r.config.cooldownPlatformVariant, 'v8');
  t.match(configError(t, () => run(['--cooldown-platform', 'linux/amd64'], { WATCHTOWER_COOLDOWN_PLATFORM_OS: 'linux' })).message, /cannot be used together/);
});
