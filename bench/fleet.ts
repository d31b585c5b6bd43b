// Benchmark (not a test): a check over a fleet of agents against the same check over the same engines reached
// directly by --host (docs/fleet.md, issue 47). The agents share the main engine of the test environment, as
// the issue allows: each of AGENTS hosts sees the same CONTAINERS containers on IMAGES images. The --host side
// reaches the same engine under AGENTS names (symbolic links to its socket), so both check AGENTS hosts ×
// CONTAINERS containers. The agents run in this process (their tunnels and forwarding are the agent mode's own
// modules); one more runs as a real process to measure an idle agent's RSS.
//
//   bash scripts/test-env.sh up && npm run build
//   TS_NODE_TRANSPILE_ONLY=1 node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/fleet.ts [--agents 100] [--rounds 5]
//
// Prints: manifest requests per check (target: one per image), the median check time of each side and their
// ratio (target <= 1.5x), the controller's RSS with every agent online (target <= 150 MB), an idle agent's RSS
// (target <= 50 MB).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { mapBounded } from '../core/index.js';
import { transportOptions } from '../plugins/docker/engine/connect.js';
import { createForwarder } from '../server/agent/forward.js';
import { loadOrCreateKey } from '../server/agent/key.js';
import { Link } from '../server/agent/link.js';
import { enrolToken, listAgents, startAgent } from '../test/helpers/agents.js';
import { logMark, waitFor, type TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../test/helpers/images.js';
import { freePort } from '../test/helpers/ports.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';

const AGENTS = Number(argument('agents', '100'));
const ROUNDS = Number(argument('rounds', '5'));
const CONTAINERS = 20;
const IMAGES = 10;
const TOKEN = 'bench-fleet-token-0123456789';

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-fleet');
const work = mkdtempSync(join(tmpdir(), 'tw-bench-fleet-'));
const silent = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child() { return silent; } } as never;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:')) ?? '0';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024;
}

async function checkMs(service: RunningService): Promise<{ ms: number; records: number }> {
  const started = performance.now();
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  if (res.status !== 200) throw new Error(`check answered ${res.status}: ${res.text.slice(0, 300)}`);
  return { ms: performance.now() - started, records: (res.body as { containers: unknown[] }).containers.length };
}

async function manifestRequests(service: RunningService): Promise<number> {
  const mark = await logMark(env.registryLog);
  await checkMs(service);
  await sleep(500);
  return (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/`) && l.includes('/manifests/')).length;
}

async function main(): Promise<void> {
  // The fleet: CONTAINERS containers over IMAGES images on the main engine, each image stale.
  for (let i = 0; i < IMAGES; i++) {
    const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `v1 ${i}`, cmd: QUICK_STOP_CMD });
    await pullImage(engine, v1.ref);
    for (let c = i; c < CONTAINERS; c += IMAGES) await runContainer(engine, { name: `${prefix}-c${c}`, image: v1.ref, cmd: QUICK_STOP_CMD });
    await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `v2 ${i}`, cmd: QUICK_STOP_CMD });
  }
  const filter = `${prefix}-c.*`;

  // Direct: the same engine under AGENTS names.
  mkdirSync(join(work, 'socks'));
  const hosts = Array.from({ length: AGENTS }, (_, i) => {
    const link = join(work, 'socks', `h${i}.sock`);
    symlinkSync(env.dockerSocket, link);
    return `unix://${link}`;
  });
  const direct = await startService([...hosts.flatMap((h) => ['--host', h]), '--http-api-endpoints', 'check', '--http-api-token', TOKEN, filter]);

  // Agents: a controller whose own engine has none of the fleet's containers, and AGENTS agents on the main engine.
  const port = await freePort();
  const controller = await startService([
    '--host', env.docker26Host ?? env.dockerHost, '--http-api-port', String(port),
    '--http-api-endpoints', 'check,agents', '--http-api-token', TOKEN, '--data-dir', join(work, 'controller'), filter,
  ]);
  const links: Link[] = [];
  await mapBounded(Array.from({ length: AGENTS }, (_, i) => i), 10, async (i) => {
    const dataDir = join(work, `agent${i}`);
    const link = new Link({
      controller: `ws://127.0.0.1:${port}`, name: `a${i}`, stage: 1, version: 'bench', dataDir,
      enrolToken: await enrolToken(controller.url, TOKEN), key: loadOrCreateKey(dataDir), logger: silent,
      forwarder: createForwarder(transportOptions({ host: env.dockerHost }), silent, () => undefined),
    });
    links.push(link);
    link.start();
  });
  await waitFor(async () => ((await listAgents(controller.url, TOKEN)).filter((a) => a.state === 'online').length === AGENTS ? true : undefined), 120_000, 500);

  // On an engine without the fleet's containers: it adds nothing to the checks.
  const idle = startAgent({ controller: `ws://127.0.0.1:${port}`, name: 'idle', host: env.docker26Host ?? env.dockerHost, token: await enrolToken(controller.url, TOKEN) });

  // Warm both (each engine's repair, image facts), then interleave the rounds.
  const warm = [await checkMs(direct), await checkMs(controller)];
  console.log(`records per check: direct ${warm[0]?.records}, agents ${warm[1]?.records} (expected ${AGENTS * CONTAINERS})`);
  const times = { direct: [] as number[], agents: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    times.direct.push((await checkMs(direct)).ms);
    times.agents.push((await checkMs(controller)).ms);
  }
  const requests = { direct: await manifestRequests(direct), agents: await manifestRequests(controller) };
  await sleep(10_000);
  const controllerRss = rssMb(controller.child.pid as number);
  const directRss = rssMb(direct.child.pid as number);
  const agentRss = rssMb(idle.child.pid as number);
  const [d, a] = [median(times.direct), median(times.agents)];
  console.log(`manifest requests per check: agents ${requests.agents}, direct ${requests.direct} (target ${IMAGES})`);
  console.log(`check of ${AGENTS} hosts x ${CONTAINERS} containers: direct median ${d.toFixed(0)} ms, agents median ${a.toFixed(0)} ms, ratio ${(a / d).toFixed(2)}x (target <= 1.5x)`);
  console.log(`controller RSS with ${AGENTS} agents online: ${controllerRss.toFixed(1)} MB (target <= 150 MB); the same engines by --host: ${directRss.toFixed(1)} MB`);
  const status = readFileSync(`/proc/${idle.child.pid as number}/status`, 'utf8');
  const kb = (name: string) => ((Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)) / 1024).toFixed(1);
  console.log(`idle agent RSS: ${agentRss.toFixed(1)} MB (target <= 50 MB; anonymous ${kb('RssAnon')} MB, files ${kb('RssFile')} MB)`);

  for (const link of links) link.stop();
  await idle.stop();
  await direct.stop();
  await controller.stop();
}

try {
  await main();
} finally {
  await removeContainers(engine, prefix);
  await removeImages(engine, prefix);
  rmSync(work, { recursive: true, force: true });
}
