// Signature verification through the built binary against the real engine and registry
// (docs/signatures.md): under enforce an unsigned image, one signed by another key, one whose signature
// names another digest, an attestation-only image and a tampered payload are each skipped with a reason
// starting `signature ` while the container keeps running its image; a verified image (legacy .sig and v3
// bundle) is applied, pulled by the digest verified. A tag moved to an unsigned image between the check
// and the update is not applied. A policy without a key exits 2.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeBundle, makeKey, pushBundles, signLegacy, type KeyKind, type TestKey } from '../helpers/cosign.js';
import type { TestEnv } from '../helpers/env.js';
import { pushNext, runningOn, scenario, type RunningOn, type Scenario } from '../helpers/scenarios.js';
import { call, runBinary, startService, type RunningService } from '../helpers/service.js';
import { makeKeyless, makeKeylessLike } from '../helpers/sigstore-ca.js';

const TOKEN = 'e2e-signatures-token-0123456789';

interface SignedRecord {
  name: string;
  update_available: boolean;
  latest_digest: string;
  signature?: string;
}

async function serviceFor(t: { teardown(fn: () => unknown): void }, env: TestEnv, prefix: string, extra: string[]): Promise<RunningService> {
  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'update,check,metrics',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    ...extra,
    `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

/** A scenario with a fresh signing key whose public half is in a file, for --cosign-key. */
async function signedScenario(t: Parameters<typeof scenario>[0], label: string, kind: KeyKind): Promise<(Scenario & { key: TestKey; keyFile: string }) | undefined> {
  const s = await scenario(t, label);
  if (!s) return undefined;
  const key = makeKey(kind);
  const keyFile = join(s.env.envDir, `${s.prefix}-cosign.pub`);
  writeFileSync(keyFile, key.pem);
  return { ...s, key, keyFile };
}

async function checkRecords(service: RunningService): Promise<Map<string, SignedRecord>> {
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const body = res.body as { containers: SignedRecord[] };
  return new Map(body.containers.map((c) => [c.name, c]));
}

async function runningImage(s: Scenario, running: RunningOn): Promise<{ image: string; state: string }> {
  const info = await s.engine.getContainer(running.name).inspect();
  return { image: info.Image, state: info.State.Status };
}

t.test('enforce: every refused case keeps its container; verified images are applied by digest', async (t) => {
  const s = await signedScenario(t, 'e2e-sig', 'ecdsa');
  if (!s) return;
  const { env, prefix, key, keyFile } = s;
  const other = makeKey('ecdsa');

  const sign = {
    unsigned: async () => undefined,
    'other-key': (r: string, d: string) => signLegacy({ registry: env.registry, repo: r, digest: d }, [other]),
    'other-digest': (r: string, d: string) =>
      signLegacy({ registry: env.registry, repo: r, digest: d }, [key], { signedDigest: `sha256:${'ab'.repeat(32)}` }),
    'attestation-only': (r: string, d: string, mediaType: string) =>
      pushBundles(
        { registry: env.registry, repo: r, digest: d },
        [{ bundle: makeBundle({ registry: env.registry, repo: r, digest: d }, key, { predicateType: 'https://slsa.dev/provenance/v1' }), predicateType: 'https://slsa.dev/provenance/v1' }],
        mediaType,
      ),
    tampered: (r: string, d: string) => signLegacy({ registry: env.registry, repo: r, digest: d }, [key], { tamper: true }),
    'ok-legacy': (r: string, d: string) => signLegacy({ registry: env.registry, repo: r, digest: d }, [key]),
    'ok-bundle': (r: string, d: string, mediaType: string) =>
      pushBundles({ registry: env.registry, repo: r, digest: d }, [{ bundle: makeBundle({ registry: env.registry, repo: r, digest: d }, key) }], mediaType),
  } as const;
  const expected: Readonly<Record<keyof typeof sign, string>> = {
    unsigned: 'unsigned',
    'other-key': 'invalid',
    'other-digest': 'invalid',
    'attestation-only': 'unsigned',
    tampered: 'invalid',
    'ok-legacy': 'verified',
    'ok-bundle': 'verified',
  };
  const cases = new Map<string, { running: RunningOn; v2Digest: string; v2Ref: string; before: string; verdict: string }>();
  for (const [name, signer] of Object.entries(sign) as [keyof typeof sign, (r: string, d: string, m: string) => Promise<unknown>][]) {
    const running = await runningOn(s, name);
    const v2 = await pushNext(s, running);
    await signer(running.repo, v2.digest, v2.mediaType);
    cases.set(running.name, { running, v2Digest: v2.digest, v2Ref: v2.ref, before: (await runningImage(s, running)).image, verdict: expected[name] });
  }

  const service = await serviceFor(t, env, prefix, ['--verify-signatures', 'enforce', '--cosign-key', keyFile]);
  const records = await checkRecords(service);
  for (const [name, c] of cases) {
    const record = records.get(name);
    t.equal(record?.update_available, true, `${name} is stale`);
    t.equal(record?.latest_digest, c.v2Digest, `${name}: the candidate is the pushed digest`);
    t.equal(record?.signature, c.verdict, `${name}: the check record says ${c.verdict}`);
  }

  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(update.status, 200);
  t.match(update.body, { summary: { updated: 2, failed: 0, skipped: 5 } }, 'two applied, five skipped');
  for (const [name, c] of cases) {
    const now = await runningImage(s, c.running);
    t.equal(now.state, 'running', `${name} is running`);
    if (c.verdict === 'verified') {
      t.not(now.image, c.before, `${name}: the verified image was applied`);
      const image = await s.engine.getImage(now.image).inspect();
      t.ok(image.RepoDigests.includes(`${env.registry}/${c.running.repo}@${c.v2Digest}`), `${name}: it runs the digest verified`);
    } else {
      t.equal(now.image, c.before, `${name}: the container keeps its image`);
      const skipped = service.logs.find((l) => l['container'] === name && typeof l['reason'] === 'string');
      t.match(skipped?.['reason'], new RegExp(`^signature ${c.verdict}: `), `${name}: skipped with a reason starting "signature "`);
    }
  }
  const metrics = await call(`${service.url}/v1/metrics`, { token: TOKEN });
  t.match(metrics.text, /tidewatch_signature_verifications_total\{result="verified"\} 2/, 'verified verdicts counted once each (cached for the update)');
  t.match(metrics.text, /tidewatch_signature_verifications_total\{result="invalid"\} 3/);
  t.match(metrics.text, /tidewatch_signature_verifications_total\{result="unsigned"\} 2/);
});

t.test('a tag moved to an unsigned image after the check is not applied', async (t) => {
  const s = await signedScenario(t, 'e2e-sig-moved', 'ed25519');
  if (!s) return;
  const { env, prefix, key, keyFile } = s;
  const running = await runningOn(s, 'moved');
  const before = (await runningImage(s, running)).image;
  const signed = await pushNext(s, running);
  await signLegacy({ registry: env.registry, repo: running.repo, digest: signed.digest }, [key]);

  const service = await serviceFor(t, env, prefix, ['--verify-signatures', 'enforce', '--cosign-key', keyFile]);
  const checked = (await checkRecords(service)).get(running.name);
  t.equal(checked?.signature, 'verified', 'the check verified the signed image');
  t.equal(checked?.latest_digest, signed.digest);

  // The tag moves to an unsigned image before the update.
  const unsigned = await pushNext(s, running, { marker: `${running.repo} v3 unsigned` });
  t.not(unsigned.digest, signed.digest);
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { updated: 0, skipped: 1 } }, 'nothing applied');
  const now = await runningImage(s, running);
  t.equal(now.image, before, 'the container keeps its image: neither the unsigned one nor anything unverified');
  const images = await s.engine.listImages();
  t.notOk(
    images.some((i) => (i.RepoDigests ?? []).includes(`${env.registry}/${running.repo}@${unsigned.digest}`)),
    'the unsigned image was never pulled',
  );
});

// Moves the tag to another manifest right after the signature gate said yes, before the runtime's pull: a
// third-party plugin loaded with --plugins, tapping the gate between the verify and commit stages.
const MOVE_TAG_PLUGIN = `
export default {
  name: 'move-tag-after-verify',
  apply(core) {
    core.hooks.gate.tapPromise({ name: 'move-tag-after-verify', stage: 50 }, async (target, staleness) => {
      const move = JSON.parse(process.env.TW_TEST_MOVE_TAG);
      if (!staleness.stale || !target.name.endsWith(move.container)) return undefined;
      const base = 'http://' + move.registry + '/v2/' + move.repo + '/manifests/';
      const got = await fetch(base + move.from, { headers: { accept: move.mediaType } });
      const body = Buffer.from(await got.arrayBuffer());
      const put = await fetch(base + move.tag, { method: 'PUT', headers: { 'content-type': move.mediaType }, body });
      if (put.status !== 201) throw new Error('moving the tag failed: ' + put.status);
      return undefined;
    });
  },
};
`;

t.test('a tag moved after the gate verified it: the verified digest is what runs', async (t) => {
  const s = await signedScenario(t, 'e2e-sig-race', 'ecdsa');
  if (!s) return;
  const { env, prefix, key, keyFile } = s;
  const pluginFile = join(env.envDir, `${prefix}-move-tag.mjs`);
  writeFileSync(pluginFile, MOVE_TAG_PLUGIN);
  const running = await runningOn(s, 'race');
  // The unsigned image waits under another tag; the signed one is under the container's tag.
  const unsigned = await pushNext(s, running, { marker: `${running.repo} unsigned`, tag: 'unsigned' });
  const signed = await pushNext(s, running);
  await signLegacy({ registry: env.registry, repo: running.repo, digest: signed.digest }, [key]);

  const service = await startService(
    [
      '--host', env.dockerHost, '--http-api-endpoints', 'update', '--http-api-token', TOKEN, '--update-grace-period', '1s', '--stop-timeout', '5s',
      '--verify-signatures', 'enforce', '--cosign-key', keyFile, '--plugins', pluginFile, `${prefix}-.*`,
    ],
    { TW_TEST_MOVE_TAG: JSON.stringify({ container: 'race', registry: env.registry, repo: running.repo, from: unsigned.digest, tag: 'latest', mediaType: unsigned.mediaType }) },
  );
  t.teardown(() => service.stop('SIGKILL'));
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { updated: 1, failed: 0 } }, 'applied');
  const tagNow = await fetch(`http://${env.registry}/v2/${running.repo}/manifests/latest`, { method: 'HEAD', headers: { accept: unsigned.mediaType } });
  t.equal(tagNow.headers.get('docker-content-digest'), unsigned.digest, 'the tag did move to the unsigned image before the pull');
  const info = await s.engine.getContainer(running.name).inspect();
  const image = await s.engine.getImage(info.Image).inspect();
  t.ok(image.RepoDigests.includes(`${env.registry}/${running.repo}@${signed.digest}`), 'the container runs the verified digest');
  t.notOk(image.RepoDigests.includes(`${env.registry}/${running.repo}@${unsigned.digest}`), 'not the unsigned image the tag names now');
});

t.test('warn updates an unsigned image and reports it; enforce without a key exits 2', async (t) => {
  const s = await signedScenario(t, 'e2e-sig-warn', 'rsa');
  if (!s) return;
  const { env, prefix, keyFile } = s;
  const running = await runningOn(s, 'warned');
  const before = (await runningImage(s, running)).image;
  await pushNext(s, running);
  const service = await serviceFor(t, env, prefix, ['--verify-signatures', 'warn', '--cosign-key', keyFile]);
  t.equal((await checkRecords(service)).get(running.name)?.signature, 'unsigned');
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { updated: 1, skipped: 0 } }, 'warn updates anyway');
  t.not((await runningImage(s, running)).image, before);

  const refused = await runBinary(['--verify-signatures', 'enforce', '--run-once', '--host', env.dockerHost]);
  t.equal(refused.code, 2, 'exit code 2');
  const lines = refused.stderr.trim().split('\n');
  t.equal(lines.length, 1, 'one line');
  t.match(lines[0], /--verify-signatures .*needs --cosign-key/, 'naming the option');
  const noIssuer = await runBinary(['--cosign-identity', 'dev@example.com', '--run-once', '--host', env.dockerHost]);
  t.equal(noIssuer.code, 2);
  t.match(noIssuer.stderr, /--cosign-issuer/);
});

t.test('a tag-policy update goes through the same gate: the newer tag applied only once signed', async (t) => {
  const s = await signedScenario(t, 'e2e-sig-tags', 'ecdsa');
  if (!s) return;
  const { env, prefix, key, keyFile } = s;
  const running = await runningOn(s, 'semver', { image: { tag: '1.0.0' }, run: { labels: { 'tidewatch.tag.policy': 'minor' } } });
  const before = (await runningImage(s, running)).image;
  const minor = await pushNext(s, running, { tag: '1.1.0' });
  const service = await serviceFor(t, env, prefix, ['--verify-signatures', 'enforce', '--cosign-key', keyFile]);
  const unsignedCheck = (await checkRecords(service)).get(running.name);
  t.equal(unsignedCheck?.latest_digest, minor.digest, 'the candidate is the newer tag digest');
  t.equal(unsignedCheck?.signature, 'unsigned');
  const refused = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(refused.body, { summary: { updated: 0, skipped: 1 } }, 'the unsigned newer tag is not applied');
  t.equal((await runningImage(s, running)).image, before);

  await signLegacy({ registry: env.registry, repo: running.repo, digest: minor.digest }, [key]);
  // `unsigned` is believed for a while (docs/signatures.md#what-it-costs): a fresh service judges again.
  await service.stop('SIGKILL');
  const again = await serviceFor(t, env, prefix, ['--verify-signatures', 'enforce', '--cosign-key', keyFile]);
  const applied = await call(`${again.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(applied.body, { summary: { updated: 1, skipped: 0 } }, 'signed: applied');
  const info = await s.engine.getContainer(running.name).inspect();
  t.equal(info.Config.Image, `${env.registry}/${running.repo}:1.1.0`, 'the container runs the newer tag');
  const image = await s.engine.getImage(info.Image).inspect();
  t.ok(image.RepoDigests.includes(`${env.registry}/${running.repo}@${minor.digest}`), 'by the digest verified');
});

t.test('keyless through the binary: a bundle from the test CA with a timestamp is applied, another identity is not', async (t) => {
  const s = await scenario(t, 'e2e-sig-keyless');
  if (!s) return;
  const { env, prefix } = s;
  const signer = makeKeyless('release@tidewatch.test', 'https://issuer.tidewatch.test');
  const apps = ['keyless-ok', 'keyless-stranger'];
  const before = new Map<string, string>();
  const candidates = new Map<string, string>();
  for (const name of apps) {
    const running = await runningOn(s, name);
    before.set(running.name, (await runningImage(s, running)).image);
    const v2 = await pushNext(s, running);
    candidates.set(running.name, v2.digest);
    const where = { registry: env.registry, repo: running.repo, digest: v2.digest };
    // The stranger signs with the same CA and timestamp authority, under another identity.
    const who = name === 'keyless-ok' ? signer : makeKeylessLike(signer, 'someone@elsewhere.test');
    await pushBundles(where, [{ bundle: makeBundle(where, who.key, { certificate: who.certificate, timestamp: (sig) => who.timestamp(sig) }) }], v2.mediaType);
  }
  const service = await serviceFor(t, env, prefix, [
    '--verify-signatures', 'enforce', '--cosign-identity', 'release@tidewatch.test', '--cosign-issuer', 'https://issuer.tidewatch.test',
    '--sigstore-trusted-root', signer.trustedRoot,
  ]);
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { updated: 1, skipped: 1 } });
  const ok = `${prefix}-keyless-ok`;
  const stranger = `${prefix}-keyless-stranger`;
  const okInfo = await s.engine.getContainer(ok).inspect();
  t.ok((await s.engine.getImage(okInfo.Image).inspect()).RepoDigests.some((d) => d.endsWith(`@${candidates.get(ok)}`)), 'the keyless-signed digest runs');
  t.equal((await s.engine.getContainer(stranger).inspect()).Image, before.get(stranger), 'another identity: kept as it was');
  const skipped = service.logs.find((l) => l['container'] === stranger && typeof l['reason'] === 'string');
  t.match(skipped?.['reason'], /^signature invalid: the keyless bundle does not verify/);
});
