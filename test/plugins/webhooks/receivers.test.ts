// Receiver specs (docs/webhooks.md#configuration): parsing, files for tokens and secrets, and messages that
// never echo a secret; through the binary, a bad spec exits 2 with one line naming the option.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseReceivers } from '../../../plugins/webhooks/receivers.js';
import { configView, resolveConfig } from '../../../server/config/index.js';
import { runBinary } from '../../helpers/service.js';

const ctx = { origin: 'flag' as const, cwd: process.cwd() };

t.test('specs, separated by ";", with defaults and files', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-hooks-'));
  writeFileSync(join(dir, 'token'), '  from-a-file\n');
  const parsed = parseReceivers(`reg=distribution,token=abc,action=update; gh=GitHub,secret=${join(dir, 'token')} ;hub=dockerhub,token=x`, ctx);
  t.same(parsed, [
    { name: 'reg', kind: 'distribution', token: 'abc', secret: '', action: 'update' },
    { name: 'gh', kind: 'github', token: '', secret: 'from-a-file', action: 'check' },
    { name: 'hub', kind: 'dockerhub', token: 'x', secret: '', action: 'check' },
  ]);
  t.same(parseReceivers('', ctx), [], 'nothing configured');
});

t.test('bad specs say what is wrong and never echo a value', async (t) => {
  const cases: [string, RegExp][] = [
    ['reg=distribution', /needs a token or a secret/],
    ['reg=ftp,token=TOPSECRET1', /unknown kind/],
    ['Bad Name=generic,token=TOPSECRET1', /receiver name/],
    ['reg=generic,token=TOPSECRET1,action=delete', /action must be check or update/],
    ['reg=generic,token=TOPSECRET1,TOPSECRET2', /unknown key/],
    ['reg=generic,token=', /token is empty/],
    ['a=generic,token=TOPSECRET1;a=quay,token=TOPSECRET1', /configured twice/],
  ];
  for (const [spec, why] of cases) {
    const err = t.throws(() => parseReceivers(spec, ctx)) as Error;
    t.match(err.message, why, spec.replace(/TOPSECRET\d/g, '…'));
    t.notMatch(err.message, /TOPSECRET/, 'no secret in the message');
  }
});

t.test('the binary: a bad spec exits 2 with one line naming the option, the secret redacted', async (t) => {
  const flag = await runBinary(['--webhook', 'reg=generic,token=TOPSECRET9,colour=blue']);
  t.equal(flag.code, 2);
  const line = flag.stderr.trim();
  t.equal(line.split('\n').length, 1, 'one line');
  t.match(line, /--webhook \(TIDEWATCH_WEBHOOKS\)/);
  t.match(line, /unknown key "colour"/);
  t.notMatch(flag.stderr + flag.stdout, /TOPSECRET9/);
  const env = await runBinary([], { TIDEWATCH_WEBHOOKS: 'a=quay,token=TOPSECRET9;a=generic,token=TOPSECRET9' });
  t.equal(env.code, 2);
  t.match(env.stderr, /TIDEWATCH_WEBHOOKS.*configured twice/);
  t.notMatch(env.stderr + env.stdout, /TOPSECRET9/);
});

t.test('the config file takes a webhooks: list; /v1/config shows <redacted>; flag beats variable beats file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-hooks-config-'));
  const file = join(dir, 'tidewatch.yaml');
  writeFileSync(file, 'webhooks:\n  - reg=distribution,token=FILESECRET1,action=update\n  - gh=github,secret=FILESECRET2\n');
  const fromFile = resolveConfig({ argv: ['--config', file], env: {}, cwd: dir });
  t.same(
    (fromFile.config['webhook'] as { name: string; kind: string; action: string }[]).map((r) => [r.name, r.kind, r.action]),
    [['reg', 'distribution', 'update'], ['gh', 'github', 'check']],
  );
  const view = configView(fromFile);
  t.equal(view['webhook'], '<redacted>');
  t.notMatch(JSON.stringify(view), /FILESECRET/);
  const fromEnv = resolveConfig({ argv: ['--config', file], env: { TIDEWATCH_WEBHOOKS: 'a=quay,token=x;b=generic,token=y' }, cwd: dir });
  t.same((fromEnv.config['webhook'] as { name: string }[]).map((r) => r.name), ['a', 'b'], 'the variable beats the file');
  const fromFlags = resolveConfig({ argv: ['--config', file, '--webhook', 'c=harbor,token=z', '--webhook', 'd=dockerhub,token=w'], env: {}, cwd: dir });
  t.same((fromFlags.config['webhook'] as { name: string }[]).map((r) => r.name), ['c', 'd'], 'repeated flags accumulate');
});
