// Benchmark (not a test): `POST /v1/check` with `--verify-signatures enforce` through the real service, 200
// containers over 50 images (docs/signatures.md#what-it-costs). Every image has a newer digest under its tag,
// signed in cosign's legacy format, so each check judges 50 distinct candidates. Counted in the registry's
// own access log, per check: the manifest requests of the staleness checks, and the signature requests
// (the referrers API once per registry, per candidate the referrers tag and the `.sig` tag, and the payload
// blob). The second check (verdicts cached) must make no signature request at all.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:signatures -- [--rounds 5] [--size 200x50]
import { readFileSync, writeFileSync } from 'node:fs';
import Docker from 'dockerode';
import { mapBounded } from '../core/index.js';
import { makeKey, signLegacy } from '../test/helpers/cosign.js';
import { logMark, type TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix } from '../test/helpers/images.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';

const ROUNDS = Math.max(3, Number(argument('rounds', '5')));
const [CONTAINERS, IMAGES] = argument('size', '200x50').split('x').map(Number) as [number, number];
const TOKEN = 'bench-signatures-token-0123456789';
const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-sig');

/** Each image: v1 pulled and run by CONTAINERS/IMAGES containers, v2 pushed under the tag and signed. */
async function fleet(keyPem: (pem: string) => void): Promise<void> {
  const key = makeKey('ecdsa');
  keyPem(key.pem);
  await mapBounded(
    Array.from({ length: IMAGES }, (_, i) => i),
    4,
    async (i) => {
      const repo = `${prefix}/img${i}`;
      const v1 = await pushImage({ registry: env.registry, repo, marker: `bench-sig-${i} v1`, cmd: ['sleep', '86400'] });
      await pullImage(engine, v1.ref);
      const v2 = await pushImage({ registry: env.registry, repo, marker: `bench-sig-${i} v2`, cmd: ['sleep', '86400'] });
      await signLegacy({ registry: env.registry, repo, digest: v2.digest }, [key]);
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
  signature: { referrersApi: number; referrersTag: number; sigTag: number; blobs: number; total: number };
  verdicts: Record<string, number>;
}

async function check(service: RunningService): Promise<Counted> {
  const mark = await logMark(env.registryLog);
  const started = performance.now();
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const ms = performance.now() - started;
  const body = res.body as { containers?: { signature?: string }[] };
  if (res.status !== 200 || body.containers?.length !== CONTAINERS) throw new Error(`check: ${res.status} ${res.text.slice(0, 300)}`);
  await sleep(500); // the registry logs after each response
  const lines = (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/`));
  const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
  const signature = {
    referrersApi: count(/\/referrers\/sha256:/),
    referrersTag: count(/\/manifests\/sha256-[a-f0-9]{64} /),
    sigTag: count(/\/manifests\/sha256-[a-f0-9]{64}\.sig /),
    blobs: count(/"GET [^"]*\/blobs\/sha256:/),
    total: 0,
  };
  signature.total = signature.referrersApi + signature.referrersTag + signature.sigTag + signature.blobs;
  const verdicts: Record<string, number> = {};
  for (const c of body.containers ?? []) verdicts[c.signature ?? 'none'] = (verdicts[c.signature ?? 'none'] ?? 0) + 1;
  return { ms, manifestHeads: count(/"HEAD [^"]*\/manifests\/latest /), signature, verdicts };
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
    const results: { cold: Counted; warm: Counted[] }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh service per round: its first check is cold (no verdict cached), the next ones warm.
      const service = await startService([
        '--host', env.dockerHost, '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-startup-message',
        '--verify-signatures', 'enforce', '--cosign-key', keyFile, `${prefix}-.*`,
      ]);
      try {
        const cold = await check(service);
        const warm = [await check(service), await check(service)];
        results.push({ cold, warm });
      } finally {
        await service.stop('SIGTERM');
      }
    }
    const first = results[0] as { cold: Counted; warm: Counted[] };
    console.log('cold check (first of a service):', JSON.stringify({ manifestHeads: first.cold.manifestHeads, signature: first.cold.signature, verdicts: first.cold.verdicts }));
    console.log('warm check (verdicts cached):   ', JSON.stringify({ manifestHeads: first.warm[0]?.manifestHeads, signature: first.warm[0]?.signature }));
    const perCandidate = (first.cold.signature.total - first.cold.signature.referrersApi) / IMAGES;
    console.log(`signature requests per candidate (cold, besides the one referrers API probe): ${perCandidate.toFixed(2)} (2 tag lookups + 1 payload blob)`);
    console.log(`median cold check: ${median(results.map((r) => r.cold.ms)).toFixed(0)} ms; median warm check: ${median(results.flatMap((r) => r.warm.map((w) => w.ms))).toFixed(0)} ms over ${ROUNDS} rounds`);
    console.log(`loadavg after: ${load()}`);
    const bad = results.some((r) => r.warm.some((w) => w.signature.total !== 0)) || first.cold.manifestHeads !== IMAGES;
    if (bad) {
      console.error('FAIL: a warm check made signature requests, or the manifest requests were not one per image');
      process.exitCode = 1;
    }
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
