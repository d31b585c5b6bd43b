// skopeo as the independent verifier of the legacy signatures (docs/signatures.md#tests): Debian trixie's
// skopeo 1.18 (scripts/skopeo-trixie.sh; bookworm's has sigstore disabled) with a `sigstoreSigned` policy
// holding the public key and `use-sigstore-attachments`, copying each candidate by digest from the real
// registry. skopeo must accept what Tidewatch verifies and refuse the rest: unsigned, another key, another
// digest, a tampered payload. Under CI=true a missing skopeo fails the test.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { makeKey, signLegacy, type TestKey } from '../../helpers/cosign.js';
import { requireEnv, type TestEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { REPO_ROOT } from '../../helpers/service.js';
import { checkAll, staleAt } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('sig-skopeo');

function skopeoPath(env: TestEnv): string | undefined {
  const found = spawnSync('bash', [join(REPO_ROOT, 'scripts/skopeo-trixie.sh'), 'path'], {
    env: { ...process.env, TIDEWATCH_ENV_DIR: env.envDir },
    encoding: 'utf8',
  });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** skopeo's verdict: whether `copy` of the digest passes the policy (exit 0), and what it said. */
function skopeoCopy(skopeo: string, dir: string, reference: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      skopeo,
      ['--policy', join(dir, 'policy.json'), '--registries.d', join(dir, 'registries.d'), 'copy', '--src-tls-verify=false', `docker://${reference}`, `dir:${mkdtempSync(join(dir, 'copy-'))}`],
      { timeout: 60_000 },
      (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout}${stderr}`.trim() }),
    );
  });
}

t.test('skopeo agrees with Tidewatch on every legacy case', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const skopeo = skopeoPath(env);
  if (!skopeo) {
    if (process.env['CI'] === 'true') throw new Error("trixie's skopeo is not installed (bash scripts/skopeo-trixie.sh)");
    t.plan(0, "no trixie skopeo (bash scripts/skopeo-trixie.sh)");
    return;
  }
  const keys: Record<string, TestKey> = { ecdsa: makeKey('ecdsa'), ed25519: makeKey('ed25519'), rsa: makeKey('rsa') };
  const other = makeKey('ecdsa');
  const dir = mkdtempSync(join(tmpdir(), 'tw-skopeo-'));
  // Each case is its own repository; the policy names each repository with the key it must be signed by.
  const cases: { name: string; keyOf: TestKey; sign: (digest: string, repo: string) => Promise<unknown>; expected: string }[] = [];
  const legacy = (repo: string, digest: string) => ({ registry: env.registry, repo, digest });
  for (const kind of ['ecdsa', 'ed25519', 'rsa'] as const) {
    cases.push({ name: `ok-${kind}`, keyOf: keys[kind]!, sign: (d, r) => signLegacy(legacy(r, d), [keys[kind]!]), expected: 'verified' });
  }
  cases.push({ name: 'unsigned', keyOf: keys['ecdsa']!, sign: async () => undefined, expected: 'unsigned' });
  cases.push({ name: 'other-key', keyOf: keys['ecdsa']!, sign: (d, r) => signLegacy(legacy(r, d), [other]), expected: 'invalid' });
  cases.push({
    name: 'other-digest',
    keyOf: keys['ecdsa']!,
    sign: (d, r) => signLegacy(legacy(r, d), [keys['ecdsa']!], { signedDigest: `sha256:${'ab'.repeat(32)}` }),
    expected: 'invalid',
  });
  cases.push({ name: 'tampered', keyOf: keys['ecdsa']!, sign: (d, r) => signLegacy(legacy(r, d), [keys['ecdsa']!], { tamper: true }), expected: 'invalid' });

  const transports: Record<string, unknown[]> = {};
  const staged = [];
  for (const c of cases) {
    const image = await staleAt(env, prefix, c.name);
    await c.sign(image.v2.digest, image.repo);
    const keyPath = join(dir, `${c.name}.pub`);
    writeFileSync(keyPath, c.keyOf.pem);
    transports[`${env.registry}/${image.repo}`] = [{ type: 'sigstoreSigned', keyPath, signedIdentity: { type: 'matchRepository' } }];
    staged.push({ ...c, ...image });
  }
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({ default: [{ type: 'reject' }], transports: { docker: transports } }));
  const registriesD = join(dir, 'registries.d');
  spawnSync('mkdir', ['-p', registriesD]);
  writeFileSync(join(registriesD, 'tidewatch-test.yaml'), `docker:\n  ${env.registry}:\n    use-sigstore-attachments: true\n`);

  const run = await checkAll(
    staged.map((s) => s.target),
    { verify: 'enforce', keys: Object.values(keys).map((k) => k.pem) },
  );
  t.teardown(run.close);
  for (const s of staged) {
    const tidewatch = readFinding(run.results.get(s.name)?.staleness, FINDINGS.signature);
    t.equal(tidewatch?.verdict, s.expected, `${s.name}: Tidewatch says ${s.expected} (${tidewatch?.reason})`);
    const skopeoSays = await skopeoCopy(skopeo, dir, `${env.registry}/${s.repo}@${s.v2.digest}`);
    t.equal(skopeoSays.ok, s.expected === 'verified', `${s.name}: skopeo ${skopeoSays.ok ? 'accepts' : 'refuses'}${skopeoSays.ok ? '' : `: ${skopeoSays.output.split('\n').pop()}`}`);
    t.equal(skopeoSays.ok, tidewatch?.verdict === 'verified', `${s.name}: skopeo and Tidewatch agree`);
  }
});
