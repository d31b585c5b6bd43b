// Benchmark (not a test): `POST /v1/check` with `--verify-attestations enforce --max-severity high` through the
// real service, 200 containers over 50 images (docs/attestations.md#what-it-costs). Every image has a newer digest
// under its tag carrying a signed vulnerability attestation (a v3 bundle under the referrers tag), so each check
// reads the facts of 50 distinct candidates. Counted in the registry's own access log, per check: the manifest
// requests of the staleness checks and the attestation requests (referrers API and tag, the artifact manifests,
// the `.att` tag, the bundle blobs). The second check (facts kept by digest) must make no attestation request, and
// its time is compared with the floor: the same check of the same fleet without attestations, same run.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:attestations -- [--rounds 3] [--size 200x50]
import { readFileSync, writeFileSync } from 'node:fs';
import Docker from 'dockerode';
import { mapBounded } from '../core/index.js';
import { makeBundle, makeKey, pushBundles } from '../test/helpers/cosign.js';
import { trivyPredicate } from '../test/plugins/attestations/harness.js';
import { logMark, type TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix } from '../test/helpers/images.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';

const ROUNDS = Math.max(1, Number(argument('rounds', '3')));
const [CONTAINERS, IMAGES] = argument('size', '200x50').split('x').map(Number) as [number, number];
const TOKEN = 'bench-attestations-token-0123456789';
const VULN = 'https://cosign.sigstore.dev/attestation/vuln/v1';
const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-att');

/** Each image: v1 pulled and run by CONTAINERS/IMAGES containers, v2 pushed under the tag and attested. */
async function fleet(keyPem: (pem: string) => void): Promise<void> {
  const key = makeKey('ecdsa');
  keyPem(key.pem);
  await mapBounded(
    Array.from({ length: IMAGES }, (_, i) => i),
    4,
    async (i) => {
      const repo = `${prefix}/img${i}`;
      const v1 = await pushImage({ registry: env.registry, repo, marker: `bench-att-${i} v1`, cmd: ['sleep', '86400'] });
      await pullImage(engine, v1.ref);
      const v2 = await pushImage({ registry: env.registry, repo, marker: `bench-att-${i} v2`, cmd: ['sleep', '86400'] });
      const where = { registry: env.registry, repo, digest: v2.digest };
      const bundle = makeBundle(where, key, { predicateType: VULN, predicate: trivyPredicate(['LOW', 'MEDIUM']) });
      await pushBundles(where, [{ bundle, predicateType: VULN }], v2.mediaType);
    },
  );
  await mapBounded(
    Array.from({ length: CONTAINERS }, (_, i) => i),
    8,
    async (i) => {
      const container = await engine.createContainer({
        name: `${prefix}-c${i}`,
        Image: `${env.registry}/${prefix}/img${i % IMAGES}:latest`,
        HostConfig: { NetworkMode: 'none' },
      });
      await container.start();
    },
  );
}

interface Counted {
  ms: number;
  manifestHeads: number;
  attestation: { referrersApi: number; referrersTag: number; artifacts: number; attTag: number; blobs: number; total: number };
}

async function check(service: RunningService): Promise<Counted> {
  const mark = await logMark(env.registryLog);
  const started = performance.now();
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const ms = performance.now() - started;
  const body = res.body as { containers?: unknown[] };
  if (res.status !== 200 || body.containers?.length !== CONTAINERS) throw new Error(`check: ${res.status} ${res.text.slice(0, 300)}`);
  await sleep(500); // the registry logs after each response
  const lines = (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/`));
  const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
  const attestation = {
    referrersApi: count(/\/referrers\/sha256:/),
    referrersTag: count(/\/manifests\/sha256-[a-f0-9]{64} /),
    artifacts: count(/\/manifests\/sha256:[a-f0-9]{64} /),
    attTag: count(/\/manifests\/sha256-[a-f0-9]{64}\.att /),
    blobs: count(/"GET [^"]*\/blobs\/sha256:/),
    total: 0,
  };
  attestation.total = attestation.referrersApi + attestation.referrersTag + attestation.artifacts + attestation.attTag + attestation.blobs;
  return { ms, manifestHeads: count(/"HEAD [^"]*\/manifests\/latest /), attestation };
}

async function main(): Promise<void> {
  let pem = '';
  const keyFile = `${env.envDir}/${prefix}-cosign.pub`;
  try {
    console.log(`fleet: ${CONTAINERS} containers over ${IMAGES} images, each with a signed newer digest`);
    await fleet((p) => (pem = p));
    writeFileSync(keyFile, pem);
    const load = () => readFileSync('/proc/loadavg', 'utf8').trim();
    console.log(`loadavg before: ${load()}`);
    const results: { cold: Counted; warm: Counted[]; floor: Counted[] }[] = [];
    const base = ['--host', env.dockerHost, '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-startup-message'];
    for (let round = 0; round < ROUNDS; round++) {
      // The floor: the same checks without attestations; then a fresh service whose first check is cold.
      const plain = await startService([...base, `${prefix}-.*`]);
      let floor: Counted[];
      try {
        floor = [await check(plain), await check(plain), await check(plain)];
      } finally {
        await plain.stop('SIGTERM');
      }
      const service = await startService([...base, '--cosign-key', keyFile, '--verify-attestations', 'enforce', '--max-severity', 'high', `${prefix}-.*`]);
      try {
        const cold = await check(service);
        const warm = [await check(service), await check(service)];
        results.push({ cold, warm, floor: floor.slice(1) });
      } finally {
        await service.stop('SIGTERM');
      }
    }
    const first = results[0] as { cold: Counted; warm: Counted[]; floor: Counted[] };
    console.log('cold check (first of a service):', JSON.stringify({ manifestHeads: first.cold.manifestHeads, attestation: first.cold.attestation }));
    console.log('warm check (facts kept):         ', JSON.stringify({ manifestHeads: first.warm[0]?.manifestHeads, attestation: first.warm[0]?.attestation }));
    const perCandidate = (first.cold.attestation.total - first.cold.attestation.referrersApi) / IMAGES;
    console.log(`attestation requests per candidate (cold, besides the one referrers API probe): ${perCandidate.toFixed(2)}`);
    const warmMs = median(results.flatMap((r) => r.warm.map((w) => w.ms)));
    const floorMs = median(results.flatMap((r) => r.floor.map((w) => w.ms)));
    console.log(`median cold check: ${median(results.map((r) => r.cold.ms)).toFixed(0)} ms; warm: ${warmMs.toFixed(0)} ms; floor (no attestations): ${floorMs.toFixed(0)} ms; warm/floor ${(warmMs / floorMs).toFixed(2)}x over ${ROUNDS} rounds`);
    console.log(`loadavg after: ${load()}`);
    const bad = results.some((r) => r.warm.some((w) => w.attestation.total !== 0)) || first.cold.manifestHeads !== IMAGES || first.cold.attestation.total === 0;
    if (bad) {
      console.error('FAIL: a warm check made attestation requests, the cold one none, or the manifest requests were not one per image');
      process.exitCode = 1;
    }
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
