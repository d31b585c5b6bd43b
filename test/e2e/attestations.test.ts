// Attestations through the built binary against the real engine and registry (docs/attestations.md): under a minor
// tag policy the candidates walk through the gate (docs/plugins.md#candidates-through-gates) and the highest one
// whose verified report passes --max-severity is applied — 1.2.0 (a critical finding) is refused for 1.1.0 (clean);
// the refused candidate is counted in the metrics by reason; under enforce with --require-provenance, a candidate with
// no attestation and one built from another source are refused (their containers keep running, the candidates are
// never pulled) while one built from the required source is applied; --verify-attestations without any key or
// identity exits 2 naming the option.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeBundle, makeKey, pushBundles } from '../helpers/cosign.js';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js';
import { call, runBinary, startService } from '../helpers/service.js';
import { slsaPredicate, trivyPredicate } from '../plugins/attestations/harness.js';

const TOKEN = 'e2e-attestations-token-0123456789';
const VULN = 'https://cosign.sigstore.dev/attestation/vuln/v1';
const SLSA = 'https://slsa.dev/provenance/v1';
const BUILDER = 'https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_container_slsa3.yml@refs/tags/v2.1.0';

t.test('--verify-attestations without a key or identity exits 2 naming the option', async (t) => {
  const bad = await runBinary(['--verify-attestations', 'enforce', '--run-once']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--verify-attestations needs --cosign-key/);
  const severity = await runBinary(['--max-severity', 'severe', '--run-once']);
  t.equal(severity.code, 2);
  t.match(severity.stderr, /--max-severity/);
  const provenance = await runBinary(['--require-provenance', 'repo=x', '--run-once']);
  t.equal(provenance.code, 2);
  t.match(provenance.stderr, /--require-provenance/);
});

t.test('a candidate with a critical finding is skipped for the next clean one', async (t) => {
  const s = await scenario(t, 'e2e-attest');
  if (!s) return;
  const { env, engine, prefix } = s;
  const key = makeKey('ecdsa');
  const keyFile = join(env.envDir, `${prefix}-cosign.pub`);
  writeFileSync(keyFile, key.pem);
  const repo = `${prefix}/app`;
  const push = (tag: string) => pushImage({ registry: env.registry, repo, tag, marker: `${prefix} ${tag}`, cmd: QUICK_STOP_CMD });
  const attestWith = async (image: { digest: string; mediaType: string }, severities: string[]) => {
    const where = { registry: env.registry, repo, digest: image.digest };
    await pushBundles(where, [{ bundle: makeBundle(where, key, { predicateType: VULN, predicate: trivyPredicate(severities) }), predicateType: VULN }], image.mediaType);
  };
  const v100 = await push('1.0.0');
  await pullImage(engine, v100.ref);
  await runContainer(engine, { name: `${prefix}-app`, image: v100.ref, labels: { 'tidewatch.tag.policy': 'minor' }, restartPolicy: 'unless-stopped', cmd: QUICK_STOP_CMD });
  const v110 = await push('1.1.0');
  await attestWith(v110, ['LOW', 'MEDIUM']);
  const v120 = await push('1.2.0');
  await attestWith(v120, ['CRITICAL', 'LOW']);

  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'update,check,metrics',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    '--cosign-key', keyFile,
    '--verify-attestations', 'enforce',
    '--max-severity', 'high',
    `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  const check = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const record = (check.body as { containers: { name: string; findings?: Record<string, string> }[] }).containers.find((c) => c.name === `${prefix}-app`);
  t.match(record?.findings?.['attestations'], /^refused: attestation vulnerabilities: 1 critical above high \(trivy 0\.58\.1\) — 1 critical, 1 low \(trivy 0\.58\.1, 2026-11-01T10:00:00Z\)$/, 'the check record shows the verified facts of the candidate in hand');
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(update.status, 200);
  t.match(update.body, { summary: { updated: 1, failed: 0 } }, 'one container updated');
  const info = await engine.getContainer(`${prefix}-app`).inspect();
  t.equal(info.Config.Image, `${env.registry}/${repo}:1.1.0`, 'it runs 1.1.0, the highest candidate the gate passed');
  const image = await engine.getImage(info.Image).inspect();
  t.ok(image.RepoDigests.includes(`${env.registry}/${repo}@${v110.digest}`), 'pulled by the digest whose report was verified');
  t.notOk(image.RepoDigests.includes(`${env.registry}/${repo}@${v120.digest}`), '1.2.0 was never pulled to run');
  const refused = service.logs.find((l) => typeof l['reason'] === 'string' && String(l['reason']).startsWith('attestation vulnerabilities'));
  t.match(refused?.['reason'], /^attestation vulnerabilities: 1 critical above high \(trivy 0\.58\.1\)$/, 'the log says why 1.2.0 was refused');
  const metrics = await call(`${service.url}/v1/metrics`, { token: TOKEN });
  t.match(metrics.text, /^tidewatch_candidates_refused_total\{by="attestations",reason="vulnerabilities"\} 1$/m, 'the refused candidate is counted by gate and reason');
});

t.test('under enforce an unattested candidate and one built from another source are refused, the right source applied', async (t) => {
  const s = await scenario(t, 'e2e-attest-prov');
  if (!s) return;
  const { env, engine, prefix } = s;
  const key = makeKey('ecdsa');
  const keyFile = join(env.envDir, `${prefix}-cosign.pub`);
  writeFileSync(keyFile, key.pem);
  // Each container runs its repository's v1; v2 is pushed under the same tag and attested (or not) as named.
  const staged: Record<string, { v1: string; v2: string }> = {};
  for (const [name, source] of [['bare', undefined], ['fork', 'https://github.com/mallory/app'], ['ours', 'https://github.com/acme/app']] as const) {
    const repo = `${prefix}/${name}`;
    const v1 = await pushImage({ registry: env.registry, repo, marker: `${prefix} ${name} v1`, cmd: QUICK_STOP_CMD });
    await pullImage(engine, v1.ref);
    await runContainer(engine, { name: `${prefix}-${name}`, image: v1.ref, restartPolicy: 'unless-stopped', cmd: QUICK_STOP_CMD });
    const v2 = await pushImage({ registry: env.registry, repo, marker: `${prefix} ${name} v2`, cmd: QUICK_STOP_CMD });
    if (source) {
      const where = { registry: env.registry, repo, digest: v2.digest };
      await pushBundles(where, [
        { bundle: makeBundle(where, key, { predicateType: VULN, predicate: trivyPredicate(['LOW']) }), predicateType: VULN },
        { bundle: makeBundle(where, key, { predicateType: SLSA, predicate: slsaPredicate(source, BUILDER) }), predicateType: SLSA },
      ], v2.mediaType);
    }
    staged[name] = { v1: (await engine.getImage(v1.ref).inspect()).Id, v2: v2.digest };
  }

  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'update,check,metrics,containers',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    '--cosign-key', keyFile,
    '--verify-attestations', 'enforce',
    '--max-severity', 'high',
    '--require-provenance', 'source=github.com/acme/*',
    `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  const check = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  type Row = { name: string; findings?: Record<string, string> };
  const record = (name: string) => (check.body as { containers: Row[] }).containers.find((c) => c.name === `${prefix}-${name}`)?.findings?.['attestations'];
  t.match(record('bare'), /^refused: attestation missing: no vulnerability attestation — no verified attestation$/, 'the record says the candidate has no attestation');
  t.match(record('fork'), /^refused: attestation provenance: source github\.com\/mallory\/app does not match github\.com\/acme\/\* — 1 low \(trivy 0\.58\.1, 2026-11-01T10:00:00Z\); built from github\.com\/mallory\/app by https:/, 'the record says why the wrong source is refused (first: a real builder id fills the 200-character line) and shows the verified facts');
  t.match(record('ours'), /^verified: 1 low \(trivy 0\.58\.1, 2026-11-01T10:00:00Z\); built from github\.com\/acme\/app by https:\/\/github\.com\/slsa-framework\//, 'the record shows the verified facts of the one that passes');
  const details = await call(`${service.url}/v1/containers/details`, { token: TOKEN });
  const detailed = (details.body as { containers: Row[] }).containers.find((c) => c.name === `${prefix}-fork`);
  t.equal(detailed?.findings?.['attestations'], record('fork'), '/v1/containers/details shows the same facts');

  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(update.status, 200);
  t.match(update.body, { summary: { updated: 1, failed: 0 } }, 'only the candidate from the required source is updated');
  const skipped = new Map(((update.body as { skipped?: { container: string; reason: string }[] }).skipped ?? []).map((x) => [x.container, x.reason]));
  t.equal(skipped.get(`${prefix}-bare`), 'attestation missing: no vulnerability attestation', 'the unattested candidate is refused under enforce');
  t.equal(skipped.get(`${prefix}-fork`), 'attestation provenance: source github.com/mallory/app does not match github.com/acme/*', 'the wrong source is refused');
  for (const name of ['bare', 'fork']) {
    const info = await engine.getContainer(`${prefix}-${name}`).inspect();
    t.equal(info.Image, staged[name]?.v1, `${name}: still runs v1`);
    t.ok(info.State.Running, `${name}: still running`);
    const images = await engine.listImages({ filters: { reference: [`${env.registry}/${prefix}/${name}`] }, digests: true });
    t.notOk(images.some((i) => (i.RepoDigests ?? []).includes(`${env.registry}/${prefix}/${name}@${staged[name]?.v2}`)), `${name}: the refused candidate was never pulled`);
  }
  const ours = await engine.getContainer(`${prefix}-ours`).inspect();
  const oursImage = await engine.getImage(ours.Image).inspect();
  t.ok(oursImage.RepoDigests.includes(`${env.registry}/${prefix}/ours@${staged['ours']?.v2}`), 'ours: runs the digest whose provenance was verified');
  const metrics = await call(`${service.url}/v1/metrics`, { token: TOKEN });
  t.match(metrics.text, /^tidewatch_candidates_refused_total\{by="attestations",reason="missing"\} 1$/m, 'the unattested refusal is counted by reason');
  t.match(metrics.text, /^tidewatch_candidates_refused_total\{by="attestations",reason="provenance"\} 1$/m, 'the provenance refusal is counted by reason');
});
