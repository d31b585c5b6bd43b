// Benchmark (not a test): the image's idle memory as `docker stats --no-stream` reports it, with 20
// watched containers (docs/performance.md#the-image). Tidewatch runs from the image built from the
// top-level Dockerfile with the socket mounted, checks the 20 containers every 5 s in monitor-only mode
// (so nothing changes), and is sampled after three runs. The floor, in the same run: a bare `node` idling
// in the same image.
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

/** `docker stats --no-stream` memory usage of one container, in MiB (the CLI's own figure). */
async function statsMiB(name: string): Promise<number> {
  const usage = await dockerCli(env, ['stats', '--no-stream', '--format', '{{.MemUsage}}', name]);
  const match = /^([\d.]+)\s*([KMG]i?B)/.exec(usage);
  if (!match) throw new Error(`unexpected docker stats output: ${usage}`);
  const factor: Record<string, number> = { KiB: 1 / 1024, kB: 1 / 1024, MiB: 1, MB: 1, GiB: 1024, GB: 1024 };
  return Number(match[1]) * (factor[match[2] as string] ?? NaN);
}

async function sampled(name: string): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    values.push(await statsMiB(name));
    await sleep(1000);
  }
  return median(values);
}

async function main(): Promise<void> {
  const image = await tidewatchImage(env);
  const pushed = await Promise.all(
    Array.from({ length: IMAGES }, (_, i) => pushImage({ registry: env.registry, repo: `${prefix}/app${i}`, marker: `${prefix} ${i}`, cmd: QUICK_STOP_CMD })),
  );
  for (const p of pushed) await pullImage(engine, p.ref);
  await mapBounded(Array.from({ length: CONTAINERS }, (_, i) => i), 4, async (i) => {
    await runContainer(engine, { name: `${prefix}-c${i}`, image: pushed[i % IMAGES]?.ref as string });
  });
  const self = `${prefix}-tidewatch`;
  const floor = `${prefix}-floor`;
  try {
    await dockerCli(env, [
      'run', '-d', '--name', self, '--network', 'host', '-v', `${env.dockerSocket}:/var/run/docker.sock`,
      image, '--interval', '5s', '--monitor-only', ...Array.from({ length: CONTAINERS }, (_, i) => `${prefix}-c${i}`),
    ]);
    await dockerCli(env, ['run', '-d', '--name', floor, '--network', 'none', '--entrypoint', 'node', image, '-e', 'setInterval(() => {}, 1 << 30)']);
    // Three scheduled runs over the 20 containers, then idle between runs.
    for (let waited = 0; ; waited += 1000) {
      const runs = (await dockerCli(env, ['logs', self])).match(/update run completed/g)?.length ?? 0;
      if (runs >= 3) break;
      if (waited > 120_000) throw new Error(`no runs seen:\n${await dockerCli(env, ['logs', '--tail', '20', self])}`);
      await sleep(1000);
    }
    const tidewatch = await sampled(self);
    const bare = await sampled(floor);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`image idle memory, ${CONTAINERS} watched containers (docker stats, median of ${SAMPLES}):`);
    console.log(`  tidewatch ${tidewatch.toFixed(1)} MiB, bare node floor ${bare.toFixed(1)} MiB, ratio ${(tidewatch / bare).toFixed(2)}`);
    console.log(`  load average ${load}`);
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
