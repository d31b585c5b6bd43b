// Benchmark (not a test): the image's idle memory as `docker stats --no-stream` reports it, with 20
// watched containers (docs/performance.md#the-image), on Node 24 (the image's runtime, docs/node.md)
// against Node 20 in the same run: the same Dockerfile built twice, on stand-in bases made from the
// pinned Node 24 and the pinned Node 20 (scripts/node-base-image.sh). Both Tidewatch containers run at
// once from their image with the socket mounted, check the same 20 containers every 5 s in monitor-only
// mode (so nothing changes), and are sampled together after three runs each. The floor, in the same
// run: a bare `node` idling in each image.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:image-memory -- [--containers 20] [--samples 5]
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { mapBounded } from '../core/index.js';
import type { TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../test/helpers/images.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { dockerCli, tidewatchImage } from '../test/helpers/tidewatch-image.js';
import { argument, median, sleep } from './cli.js';

const CONTAINERS = Number(argument('containers', '20'));
const SAMPLES = Number(argument('samples', '5'));
const IMAGES = 5;

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-image-memory');

const LINES = ['24', '20'] as const;

/** `docker stats --no-stream` memory usage of the containers, in MiB (the CLI's own figure), by name. */
async function statsMiB(names: readonly string[]): Promise<Map<string, number>> {
  const out = await dockerCli(env, ['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', ...names]);
  const factor: Record<string, number> = { KiB: 1 / 1024, kB: 1 / 1024, MiB: 1, MB: 1, GiB: 1024, GB: 1024 };
  const values = new Map<string, number>();
  for (const line of out.split('\n')) {
    const match = /^(\S+) ([\d.]+)\s*([KMG]i?B)/.exec(line);
    if (!match) throw new Error(`unexpected docker stats output: ${line}`);
    values.set(match[1] as string, Number(match[2]) * (factor[match[3] as string] ?? NaN));
  }
  return values;
}

/** The median of SAMPLES rounds, each reading every container at once (same moment, same load). */
async function sampled(names: readonly string[]): Promise<Map<string, number>> {
  const rounds: Map<string, number>[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    rounds.push(await statsMiB(names));
    await sleep(1000);
  }
  return new Map(names.map((n) => [n, median(rounds.map((r) => r.get(n) ?? NaN))]));
}

async function main(): Promise<void> {
  const images = {
    '24': await tidewatchImage(env),
    '20': await tidewatchImage(env, 'tidewatch:bench-node20', 'bench-node20', '20'),
  };
  for (const line of LINES) {
    const version = await dockerCli(env, ['run', '--rm', '--network', 'none', '--entrypoint', 'node', images[line], '--version']);
    if (!version.startsWith(`v${line}.`)) throw new Error(`the Node ${line} image runs node ${version}`);
  }
  const pushed = await Promise.all(
    Array.from({ length: IMAGES }, (_, i) => pushImage({ registry: env.registry, repo: `${prefix}/app${i}`, marker: `${prefix} ${i}`, cmd: QUICK_STOP_CMD })),
  );
  for (const p of pushed) await pullImage(engine, p.ref);
  await mapBounded(Array.from({ length: CONTAINERS }, (_, i) => i), 4, async (i) => {
    await runContainer(engine, { name: `${prefix}-c${i}`, image: pushed[i % IMAGES]?.ref as string });
  });
  const self = (line: string) => `${prefix}-tidewatch-node${line}`;
  const floor = (line: string) => `${prefix}-floor-node${line}`;
  try {
    for (const line of LINES) {
      await dockerCli(env, [
        'run', '-d', '--name', self(line), '--network', 'host', '-v', `${env.dockerSocket}:/var/run/docker.sock`,
        images[line], '--interval', '5s', '--monitor-only', ...Array.from({ length: CONTAINERS }, (_, i) => `${prefix}-c${i}`),
      ]);
      await dockerCli(env, ['run', '-d', '--name', floor(line), '--network', 'none', '--entrypoint', 'node', images[line], '-e', 'setInterval(() => {}, 1 << 30)']);
    }
    // Three scheduled runs over the 20 containers in each, then idle between runs.
    for (let waited = 0; ; waited += 1000) {
      const runs = await Promise.all(LINES.map(async (line) => (await dockerCli(env, ['logs', self(line)])).match(/update run completed/g)?.length ?? 0));
      if (runs.every((n) => n >= 3)) break;
      if (waited > 180_000) {
        const tails = await Promise.all(LINES.map((line) => dockerCli(env, ['logs', '--tail', '20', self(line)])));
        throw new Error(`no runs seen:\n${tails.join('\n')}`);
      }
      await sleep(1000);
    }
    const names = LINES.flatMap((line) => [self(line), floor(line)]);
    const mib = await sampled(names);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`image idle memory, ${CONTAINERS} watched containers (docker stats, median of ${SAMPLES}, both lines sampled together):`);
    for (const line of LINES) {
      const tidewatch = mib.get(self(line)) ?? NaN;
      const bare = mib.get(floor(line)) ?? NaN;
      console.log(`  Node ${line}: tidewatch ${tidewatch.toFixed(1)} MiB, bare node floor ${bare.toFixed(1)} MiB, ratio ${(tidewatch / bare).toFixed(2)}`);
    }
    const ratio = (mib.get(self('24')) ?? NaN) / (mib.get(self('20')) ?? NaN);
    console.log(`  Node 24 / Node 20: ${ratio.toFixed(2)}`);
    console.log(`  load average ${load}`);
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
