// The gate in an update run, in-process against the real registry, with a stub runtime that records what it
// is asked to apply (docs/signatures.md): Tidewatch's own container (self-update) meets the same gate as any
// other, a verified candidate reaches `apply` with the verdict on its plan, anything else never does and is
// counted skipped with a reason starting `signature `; a target without a registry digest is skipped too.
import t from 'tap';
import { createTidewatch, type Target, type UpdatePlan } from '../../../core/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { signaturesPlugin } from '../../../plugins/signatures/index.js';
import { makeKey, signLegacy } from '../../helpers/cosign.js';
import { requireEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { emptyConfigDir, target } from '../registry/harness.js';
import { staleAt } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('sig-gate');

t.test('self-update and ordinary targets pass the same gate', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const self = await staleAt(env, prefix, 'self');
  const signed = await staleAt(env, prefix, 'signed');
  await signLegacy({ registry: env.registry, repo: signed.repo, digest: signed.v2.digest }, [key]);
  const local: Target = target('local-build', 'local/app:dev');
  const targets: Target[] = [{ ...self.target, isSelf: true }, signed.target, local];
  const applied: UpdatePlan[] = [];
  const tw = await createTidewatch({
    plugins: [
      {
        name: 'stub-runtime',
        apply(core) {
          core.hooks.discover.tapPromise('stub-runtime', async (found) => [...found, ...targets]);
          // A local source that calls the local build stale without any registry digest.
          core.hooks.checkStaleness.tap({ name: 'stub-runtime', stage: -10 }, (tg) => (tg.name === 'local-build' ? { source: 'registry', stale: true } : undefined));
          core.hooks.apply.tapPromise('stub-runtime', async (plan) => {
            applied.push(plan);
            return { target: plan.target, outcome: 'updated' };
          });
        },
      },
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
      { plugin: signaturesPlugin, options: { verify: 'enforce', keys: [key.pem] } },
    ],
  });
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.same(applied.map((p) => p.target.name), ['signed'], 'only the verified candidate reached apply');
  t.match(readFinding(applied[0]?.staleness, FINDINGS.signature), { verdict: 'verified', digest: signed.v2.digest });
  t.equal(report.summary.skipped, 2);
  const reasons = new Map(report.skipped.map((s) => [s.target.name, s.reason]));
  t.match(reasons.get('self'), new RegExp(`^signature unsigned: no cosign signature for ${self.v2.digest}$`), 'self-update is gated too');
  t.match(reasons.get('local-build'), /^signature error: no registry digest to verify/);
});
