// Bad configuration exits 2 with one line naming the option, through the real binary.
import t from 'tap';
import { runBinary, startService } from '../helpers/service.js';

t.test('an unknown endpoint name exits 2 naming --http-api-endpoints', async (t) => {
  const res = await runBinary(['--http-api-endpoints', 'bogus']);
  t.equal(res.code, 2);
  const lines = res.stderr.trim().split('\n');
  t.equal(lines.length, 1, 'one line');
  t.match(lines[0], /--http-api-endpoints/);
  t.match(lines[0], /bogus/);
  t.equal(res.stdout, '', 'nothing else is printed');
});

t.test('a bad duration exits 2 naming --interval', async (t) => {
  const res = await runBinary(['--interval', '5x']);
  t.equal(res.code, 2);
  const lines = res.stderr.trim().split('\n');
  t.equal(lines.length, 1, 'one line');
  t.match(lines[0], /--interval/);
  t.match(lines[0], /5x/);
});

t.test('a Watchtower variable is read as an alias and still validated', async (t) => {
  const res = await runBinary([], { WATCHTOWER_POLL_INTERVAL: 'soon' });
  t.equal(res.code, 2);
  t.match(res.stderr, /interval/);
  t.match(res.stderr, /WATCHTOWER_POLL_INTERVAL/);
});

t.test('a secret never appears in an error', async (t) => {
  const res = await runBinary(['--http-api-endpoints', 'check', '--http-api-token', 'hunter2-secret', '--http-api-tls-cert', '/nonexistent.pem']);
  t.equal(res.code, 2);
  t.notMatch(res.stderr, /hunter2-secret/);
});

t.test('a bad notification URL exits 2 naming the option and the scheme, never its credentials', async (t) => {
  for (const [url, scheme] of [
    ['pigeon://user:s3cret-pw@loft', 'pigeon'],
    ['slack://hook:s3cret-pw', 'slack'],
    ['signal://u:s3cret-pw@127.0.0.1/+1234567890', 'signal'],
  ] as const) {
    const res = await runBinary(['--notification-url', url], { WATCHTOWER_POLL_INTERVAL: '3600' });
    t.equal(res.code, 2, url.replace('s3cret-pw', '…'));
    const lines = res.stderr.trim().split('\n');
    t.equal(lines.length, 1, 'one line');
    t.match(lines[0], /notification-url/);
    t.match(lines[0], new RegExp(`\\b${scheme}\\b`));
    t.notMatch(res.stderr + res.stdout, /s3cret-pw/, 'the credential is not shown');
  }
  // A scheme shoutrrr 0.17 added starts, its token redacted in the log.
  const signal = await runBinary([
    '--host', 'unix:///tmp/tidewatch-no-such-engine.sock', '--run-once',
    '--notification-url', 'signal://127.0.0.1:1/+1234567890/+0987654321?disabletls=yes&token=s3cret-pw',
  ]);
  t.not(signal.code, 2, 'a good signal URL is accepted');
  t.match(signal.stdout + signal.stderr, /"urls":\["signal:\/\/127\.0\.0\.1:1\/\+1234567890\/\+0987654321\?disabletls=yes&token=REDACTED"\]/);
  t.notMatch(signal.stderr + signal.stdout, /s3cret-pw/);
  const template = await runBinary(['--notification-url', 'logger://', '--notification-template', '{{if .Report}}']);
  t.equal(template.code, 2, 'a template that does not parse');
  t.match(template.stderr, /notification-template/);
});

t.test('--help lists options with their variables and exits 0', async (t) => {
  const res = await runBinary(['--help']);
  t.equal(res.code, 0);
  t.match(res.stdout, /--http-api-endpoints/);
  t.match(res.stdout, /TIDEWATCH_INTERVAL/);
});

t.test('a plugin that cannot be loaded exits 2 naming --plugins', async (t) => {
  const res = await runBinary(['--plugins', './examples/does-not-exist.js']);
  t.equal(res.code, 2);
  t.match(res.stderr, /--plugins/);
  t.equal(res.stderr.trim().split('\n').length, 1);
});

t.test('the startup summary names the version and plugins; --no-startup-message silences it', async (t) => {
  // No engine is needed: the service starts and keeps retrying discovery in the background.
  const args = ['--host', 'unix:///tmp/tidewatch-no-such-engine.sock', '--http-api-endpoints', 'health'];
  const loud = await startService(args);
  await loud.stop();
  const summary = loud.logs.find((line) => line['msg'] === 'Tidewatch started');
  t.match(summary, { version: /^\d+\.\d+\.\d+/, plugins: ['state', 'agents', 'docker', 'swarm', 'git', 'no-pull', 'registry', 'cooldown', 'policies', 'rollouts', 'people', 'http-api'] });
  const quiet = await startService([...args, '--no-startup-message']);
  await quiet.stop();
  t.notOk(quiet.logs.some((line) => line['msg'] === 'Tidewatch started'));
});

t.test('single sign-on options: each bad one exits 2 naming it, never the client secret', async (t) => {
  // decisions §20, docs/people.md#single-sign-on: an issuer is https: (http: to loopback only), the client id,
  // the roles and the public URL come with it, a role is one of three, and no SSO option stands without an issuer.
  const secret = 'oidc-client-s3cret-0123456789';
  const issuer = ['--oidc-issuer', 'https://id.example/realms/main'];
  for (const [argv, flag] of [
    [['--oidc-issuer', 'http://id.example/', '--oidc-client-secret', secret], '--oidc-issuer'],
    [[...issuer, '--oidc-client-secret', secret, '--oidc-roles', 'admin=a', '--public-url', 'https://tw.example/'], '--oidc-client-id'],
    [[...issuer, '--oidc-client-id', 'tw', '--oidc-client-secret', secret, '--public-url', 'https://tw.example/'], '--oidc-roles'],
    [[...issuer, '--oidc-client-id', 'tw', '--oidc-client-secret', secret, '--oidc-roles', 'admin=a'], '--public-url'],
    [[...issuer, '--oidc-client-id', 'tw', '--oidc-client-secret', secret, '--oidc-roles', 'root=a', '--public-url', 'https://tw.example/'], '--oidc-roles'],
    [['--oidc-client-id', 'tw', '--oidc-client-secret', secret], '--oidc-client-id'],
  ] as const) {
    const res = await runBinary([...argv], { WATCHTOWER_POLL_INTERVAL: '3600' });
    const shown = argv.join(' ').replace(secret, '…');
    t.equal(res.code, 2, shown);
    const lines = res.stderr.trim().split('\n');
    t.equal(lines.length, 1, `${shown}: one line`);
    t.match(lines[0], flag, `${shown}: names ${flag}`);
    t.notMatch(res.stderr + res.stdout, secret, `${shown}: the client secret is not shown`);
  }
});
