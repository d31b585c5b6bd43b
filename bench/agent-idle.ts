// Benchmark (not a test): an idle agent's RSS (docs/fleet.md#footprint, issue 47), as bench/fleet.ts measures
// it (a real `tidewatch agent` process, connected, then asked by the controller's checks, then idle; its VmRSS), for a plain
// ws:// controller and for a wss:// one (the controller's --http-api-tls-cert), on the same engine.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:agent-idle -- [--samples 3] [--kinds ws,wss] [--idle 15] [--node-flags '--no-jitless'] [--containers 20]
//
// --node-flags: node flags for the agent process only (space separated), to weigh one before it goes into
// bin/tidewatch.js (docs/fleet.md#footprint). --containers: that many containers (over two stale images) on
// the agent's engine while it runs, so the checks' times say what the agent's settings cost the tunnel.
//
// Prints each sample's RSS and the median of each kind (target: <= 50 MB on a plain controller URL).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import Docker from 'dockerode';
import { enrolToken, startAgent, waitForAgent } from '../test/helpers/agents.js';
import type { TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../test/helpers/images.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { call, startService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';

const SAMPLES = Number(argument('samples', '3'));
const KINDS = argument('kinds', 'ws,wss').split(',') as ('ws' | 'wss')[];
const TOKEN = 'bench-agent-idle-token-0123456789';
const SETTLED_MS = 8_000;
const CHECKS = 3;
const IDLE_MS = Number(argument('idle', '15')) * 1000;
const NODE_FLAGS = argument('node-flags', '').split(/\s+/).filter((flag) => flag !== '');
const CONTAINERS = Number(argument('containers', '0'));

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const work = mkdtempSync(join(tmpdir(), 'tw-bench-agent-idle-'));
const agentHost = env.docker26Host ?? env.dockerHost;
const agentEngine = new Docker({ socketPath: agentHost.replace(/^unix:\/\//, '') });
const prefix = testPrefix('bench-agent-idle');

/** CONTAINERS containers over two images on the agent's engine, each image stale in the registry. */
async function fleet(): Promise<void> {
  for (let i = 0; i < Math.min(2, CONTAINERS); i++) {
    const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `v1 ${i}`, cmd: QUICK_STOP_CMD });
    await pullImage(agentEngine, v1.ref);
    for (let c = i; c < CONTAINERS; c += 2) await runContainer(agentEngine, { name: `${prefix}-c${c}`, image: v1.ref, cmd: QUICK_STOP_CMD });
    await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `v2 ${i}`, cmd: QUICK_STOP_CMD });
  }
}

/** VmRSS in MB, and its anonymous and file-backed parts and the thread count, as /proc tells them. */
function rss(pid: number): { total: number; detail: string } {
  const lines = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n');
  const field = (name: string) => Number(/(\d+)/.exec(lines.find((l) => l.startsWith(`${name}:`)) ?? '')?.[1] ?? 0);
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  return { total: field('VmRSS') / 1024, detail: `anon ${mb(field('RssAnon'))} MB, file ${mb(field('RssFile'))} MB, ${field('Threads')} threads` };
}

/** A self-signed certificate for 127.0.0.1, the CA an agent is given through NODE_EXTRA_CA_CERTS. */
function certificate(): { cert: string; key: string } {
  const cert = join(work, 'cert.pem');
  const key = join(work, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

/** Each check's wall time (ms), over every sample: what the agent's JIT settings cost the tunnel. */
const checkTimes: number[] = [];

async function sample(kind: 'ws' | 'wss', index: number): Promise<number> {
  const tls = kind === 'wss' ? certificate() : undefined;
  // This process asks the controller for enrolment tokens over its TLS too.
  if (tls) setDefaultCACertificates([...getCACertificates('default'), readFileSync(tls.cert, 'utf8')]);
  const controller = await startService([
    '--host', env.dockerHost, '--http-api-endpoints', 'agents,check', '--http-api-token', TOKEN, '--data-dir', join(work, `controller-${kind}-${index}`),
    ...(tls ? ['--http-api-tls-cert', tls.cert, '--http-api-tls-key', tls.key] : []),
  ], tls ? { NODE_EXTRA_CA_CERTS: tls.cert } : {});
  try {
    const name = `idle-${kind}-${index}`;
    const base = controller.url.replace(/^http/, 'ws');
    const agent = startAgent({ controller: base, name, host: agentHost, token: await enrolToken(controller.url, TOKEN, name), nodeFlags: NODE_FLAGS, env: tls ? { NODE_EXTRA_CA_CERTS: tls.cert } : {} });
    try {
      const online = await waitForAgent(controller.url, TOKEN, name, 'online');
      if (!online) throw new Error(`${name} did not come online: ${JSON.stringify(agent.logs.slice(-5))}`);
      // The agent's start-up has settled (5 s after it started, bin/tidewatch.js); the controller's checks ask
      // its engine through the tunnel; the agent is read --idle seconds later. bench/fleet.ts reads its idle
      // agent about 12 s after it started, which gives about 3 MB more (docs/fleet.md#footprint).
      await sleep(SETTLED_MS);
      for (let i = 0; i < CHECKS; i++) {
        const started = performance.now();
        const checked = await call(`${controller.url}/v1/check`, { method: 'POST', token: TOKEN });
        if (checked.status !== 200) throw new Error(`check answered ${checked.status}: ${checked.text.slice(0, 300)}`);
        checkTimes.push(performance.now() - started);
      }
      await sleep(IDLE_MS);
      const measured = rss(agent.child.pid as number);
      console.log(`  ${name}: ${measured.total.toFixed(1)} MB (${measured.detail})`);
      return measured.total;
    } finally {
      await agent.stop();
    }
  } finally {
    await controller.stop();
  }
}

async function main(): Promise<void> {
  writeFileSync(join(work, '.keep'), '');
  await fleet();
  for (const kind of KINDS) {
    const values: number[] = [];
    for (let i = 0; i < SAMPLES; i++) values.push(await sample(kind, i));
    console.log(`idle agent RSS, ${kind}:// controller: ${values.map((v) => v.toFixed(1)).join(', ')} MB; median ${median(values).toFixed(1)} MB (target <= 50 MB on ws://)`);
    console.log(`checks through it (and the controller's own engine): median ${median(checkTimes.splice(0)).toFixed(0)} ms`);
  }
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    if (CONTAINERS > 0) {
      await removeContainers(agentEngine, prefix);
      await removeImages(agentEngine, prefix);
    }
    rmSync(work, { recursive: true, force: true });
  });
