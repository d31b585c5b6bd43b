// Signatures as the real cosign 3 writes them (docs/signatures.md#tests): Debian sid's cosign 3.1 signs the
// candidates on the local Distribution registry (no referrers API) with keys from `cosign generate-key-pair`
// (an encrypted private key). Tidewatch must accept exactly what `cosign verify --key` accepts: the default
// v3 bundle (stored under the referrers tag `sha256-<hex>`, its index entry typed as the OCI empty
// descriptor), the legacy `.sig` format; never another key. An attestation (`cosign attest`) is never a
// signature for Tidewatch, although cosign 3.1.1's `verify --key` accepts one (the statement's predicate type
// is not checked on that path): there the two differ on purpose (docs/signatures.md#the-bundle-format).
import t from 'tap';
import { cosignAttest, cosignSign, cosignVerifies, generateKeyPair, requireCosign } from '../../helpers/cosign-cli.js';
import { testPrefix } from '../../helpers/images.js';
import { checkAll, staleAt } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('sig-cosign3');

t.test('Tidewatch and `cosign verify --key` agree on what cosign 3 writes', async (t) => {
  const found = await requireCosign(t);
  if (!found) return;
  const { env, cosign } = found;
  const [key, stranger] = await Promise.all([generateKeyPair(cosign, 'release'), generateKeyPair(cosign, 'stranger')]);
  const cases = [
    { name: 'v3-bundle', sign: (image: string) => cosignSign(cosign, key, image), expected: 'verified', agree: true },
    { name: 'legacy', sign: (image: string) => cosignSign(cosign, key, image, { legacy: true }), expected: 'verified', agree: true },
    { name: 'attestation', sign: (image: string) => cosignAttest(cosign, key, image), expected: 'unsigned', agree: false },
    { name: 'other-key', sign: (image: string) => cosignSign(cosign, stranger, image), expected: 'invalid', agree: true },
  ] as const;
  const staged = [];
  for (const c of cases) {
    const image = await staleAt(env, prefix, c.name);
    const reference = `${env.registry}/${image.repo}@${image.v2.digest}`;
    await c.sign(reference);
    staged.push({ ...c, ...image, reference });
  }

  const run = await checkAll(staged.map((s) => s.target), { verify: 'enforce', keys: [key.publicKey] });
  t.teardown(run.close);
  for (const s of staged) {
    const tidewatch = readFinding(run.results.get(s.name)?.staleness, FINDINGS.signature);
    t.equal(tidewatch?.verdict, s.expected, `${s.name}: Tidewatch says ${s.expected} (${tidewatch?.reason})`);
    const cosignSays = await cosignVerifies(cosign, key, s.reference);
    if (!s.agree) {
      t.comment(`${s.name}: cosign verify ${cosignSays.ok ? 'accepts it' : 'refuses it'}; Tidewatch never takes an attestation for a signature`);
      continue;
    }
    t.equal(cosignSays.ok, s.expected === 'verified', `${s.name}: cosign verify ${cosignSays.ok ? 'accepts' : `refuses: ${cosignSays.output.split('\n').pop()}`}`);
    t.equal(cosignSays.ok, tidewatch?.verdict === 'verified', `${s.name}: cosign and Tidewatch agree`);
  }
  // What makes the v3 case: cosign put its bundle under the referrers tag with an empty-typed index entry.
  const v3 = staged.find((s) => s.name === 'v3-bundle')!;
  const tag = v3.v2.digest.replace(':', '-');
  const index = await fetch(`http://${env.registry}/v2/${v3.repo}/manifests/${tag}`, { headers: { accept: 'application/vnd.oci.image.index.v1+json' } });
  const body = (await index.json()) as { manifests: { artifactType?: string }[] };
  t.same(body.manifests.map((m) => m.artifactType), ['application/vnd.oci.empty.v1+json'], 'the referrers tag lists the bundle as cosign 3 writes it');
});
