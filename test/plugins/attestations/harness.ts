// Shared by the attestation tests (docs/attestations.md#tests): an update run in-process against the real registry,
// with a stub runtime that records what it is asked to apply, and the real cosign 3 attesting candidates.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTidewatch, type Target, type UpdatePlan, type UpdateReport } from '../../../core/index.js';
import { attestationsPlugin, type AttestationsPluginOptions } from '../../../plugins/attestations/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { signaturesPlugin, type SignaturesPluginOptions } from '../../../plugins/signatures/index.js';
import { runCosign, type CosignCli, type CosignKeyPair } from '../../helpers/cosign-cli.js';
import { emptyConfigDir } from '../registry/harness.js';

export interface GateRun {
  readonly applied: UpdatePlan[];
  readonly report: UpdateReport;
  readonly requests: { method: string; code: string }[];
  update(): Promise<UpdateReport>;
  close(): Promise<void>;
}

/** One update run over `targets` with the registry, signatures and attestations plugins. */
export async function updateWith(targets: Target[], signatures: SignaturesPluginOptions, attestations: AttestationsPluginOptions): Promise<GateRun> {
  const applied: UpdatePlan[] = [];
  const requests: { method: string; code: string }[] = [];
  const tw = await createTidewatch({
    plugins: [
      {
        name: 'stub-runtime',
        apply(core) {
          core.hooks.discover.tapPromise('stub-runtime', async (found) => [...found, ...targets]);
          core.hooks.apply.tapPromise('stub-runtime', async (plan) => {
            applied.push(plan);
            return { target: plan.target, outcome: 'updated' };
          });
          core.hooks.event.tap('stub-runtime', (e) => {
            if (e.type === 'registry_request') requests.push({ method: e.data.method, code: e.data.code });
          });
        },
      },
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
      { plugin: signaturesPlugin, options: signatures },
      { plugin: attestationsPlugin, options: attestations },
    ],
  });
  const report = await tw.update();
  return { applied, report, requests, update: () => tw.update(), close: () => tw.close() };
}

const OFFLINE = ['--tlog-upload=false', '--use-signing-config=false', '--allow-http-registry', '--yes'] as const;

/** `cosign attest --key --type TYPE --predicate FILE` of `image`; `legacy` writes the `.att` tag instead of a v3 bundle. */
export async function attest(cli: CosignCli, key: CosignKeyPair, image: string, type: string, predicate: unknown, options: { legacy?: boolean } = {}): Promise<void> {
  const file = join(cli.home, `predicate-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(predicate));
  const format = options.legacy ? ['--new-bundle-format=false'] : [];
  const { code, output } = await runCosign(cli, ['attest', '--key', key.privateKey, '--type', type, '--predicate', file, ...format, ...OFFLINE, image], { COSIGN_PASSWORD: key.password });
  if (code !== 0) throw new Error(`cosign attest exited ${code}: ${output.split('\n').slice(-3).join(' | ')}`);
}

/** `cosign verify-attestation --key --type TYPE`: whether cosign itself accepts the attestation. */
export async function cosignVerifiesAttestation(cli: CosignCli, key: CosignKeyPair, image: string, type: string): Promise<{ ok: boolean; output: string }> {
  const { code, output } = await runCosign(cli, ['verify-attestation', '--key', key.publicKey, '--type', type, '--insecure-ignore-tlog=true', '--allow-http-registry', image]);
  return { ok: code === 0, output };
}

/** A Trivy JSON report with one finding per severity given, inside cosign's vuln predicate. */
export function trivyPredicate(severities: readonly string[], scannedAt = '2026-11-01T10:00:00Z'): Record<string, unknown> {
  return {
    invocation: { parameters: null, uri: '', event_id: '', 'builder.id': '' },
    scanner: {
      uri: 'pkg:github/aquasecurity/trivy@0.58.1',
      version: '0.58.1',
      db: { uri: '', version: '' },
      result: {
        SchemaVersion: 2,
        ArtifactName: 'app',
        Results: [{ Target: 'app (debian 12)', Vulnerabilities: severities.map((s, i) => ({ VulnerabilityID: `CVE-2026-${1000 + i}`, Severity: s })) }],
      },
    },
    metadata: { scanStartedOn: scannedAt, scanFinishedOn: scannedAt },
  };
}

/** A SLSA provenance v1 predicate as GitHub's generator writes it. */
export function slsaPredicate(repository: string, builder: string): Record<string, unknown> {
  return {
    buildDefinition: {
      buildType: 'https://slsa-framework.github.io/github-actions-buildtypes/workflow/v1',
      externalParameters: { workflow: { ref: 'refs/heads/main', repository, path: '.github/workflows/release.yml' } },
      internalParameters: {},
      resolvedDependencies: [{ uri: `git+${repository}@refs/heads/main`, digest: { gitCommit: 'a'.repeat(40) } }],
    },
    runDetails: { builder: { id: builder }, metadata: { invocationId: 'run-1' } },
  };
}
