// One round of the chaos suite (docs/stopping.md): a small fleet, every container stale, Tidewatch stopped
// at a random moment of an update run, then what is left checked against the promise: every original name
// exists once and runs (new image, or old where the new one cannot run), nothing staged or moved aside is
// left, configuration is kept, and a dependent was (re)started after what it depends on.
//
// The fleet: db <- web on one image, a health-checked image, and an image whose new version exits at
// once. Triggers: POST /v1/update?async=true, --run-once, --update-on-start. Signals: SIGKILL (then a
// --run-once repairs and finishes the update) or SIGTERM (a graceful stop: checked as it left things).
import type Docker from 'dockerode';
import { docker, type TestEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, spawnBinary, startService } from '../helpers/service.js';

export type Trigger = 'api' | 'run-once' | 'update-on-start';
export type Phase = 'before' | 'staged' | 'old aside' | 'proving' | 'after';

export interface RoundResult {
  readonly seed: number;
  readonly trigger: Trigger;
  readonly signal: 'SIGKILL' | 'SIGTERM';
  /** --update-concurrency of the stopped process: the db <- web chain and the two others side by side at 3. */
  readonly concurrency: number;
  readonly stopAfterMs: number;
  /** What the engine showed right before the signal. */
  readonly phase: Phase;
  readonly problems: string[];
}

const TOKEN = 'chaos-token-0123456789abcdef';
const HEALTHY_NS = 200_000_000;
const NAMES = ['db', 'web', 'hc', 'crash'] as const;
type Name = (typeof NAMES)[number];

/** mulberry32: a small seeded generator, so a round can be replayed from its seed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

interface Fleet {
  readonly prefix: string;
  readonly ids: Record<Name, string>;
  readonly oldImage: Record<Name, string>;
  readonly newImage: Record<Name, string>;
}

async function fleet(env: TestEnv, engine: Docker, prefix: string): Promise<Fleet> {
  const ids = {} as Record<Name, string>;
  const oldImage = {} as Record<Name, string>;
  const newImage = {} as Record<Name, string>;
  const repoOf = (name: Name) => `${prefix}/${name === 'web' ? 'db' : name}`;
  const healthcheck = { Test: ['CMD', '/bin/true'], Interval: HEALTHY_NS, StartPeriod: 5 * HEALTHY_NS };
  for (const name of ['db', 'hc', 'crash'] as const) {
    const repo = repoOf(name);
    const v1 = await pushImage({
      registry: env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD, ...(name === 'hc' ? { healthcheck } : {}),
    });
    await pullImage(engine, v1.ref);
    oldImage[name] = v1.configDigest;
    if (name === 'db') oldImage.web = v1.configDigest;
  }
  for (const name of NAMES) {
    const c = await runContainer(engine, {
      name: `${prefix}-${name}`,
      image: `${env.registry}/${repoOf(name)}:latest`,
      env: ['KEEP=1'],
      ...(name === 'web' ? { labels: { 'tidewatch.depends-on': `${prefix}-db` } } : {}),
    });
    ids[name] = c.id;
  }
  for (const name of ['db', 'hc', 'crash'] as const) {
    const repo = repoOf(name);
    const cmd = name === 'crash' ? ['/bin/sh', '-c', 'exit 3'] : QUICK_STOP_CMD;
    const v2 = await pushImage({
      registry: env.registry, repo, marker: `${repo} v2`, cmd, ...(name === 'hc' ? { healthcheck } : {}),
    });
    newImage[name] = v2.configDigest;
    if (name === 'db') newImage.web = v2.configDigest;
  }
  return { prefix, ids, oldImage, newImage };
}

async function phaseOf(engine: Docker, f: Fleet): Promise<Phase> {
  const names = (await engine.listContainers({ all: true })).flatMap((c) => c.Names.map((n) => ({ n, id: c.Id })));
  const ours = names.filter(({ n }) => n.includes(f.prefix));
  const aside = ours.some(({ n }) => n.includes('--tidewatch-old-'));
  const staged = ours.some(({ n }) => n.includes('--tidewatch-new-'));
  const swapped = NAMES.some((name) => ours.some(({ n, id }) => n === `/${f.prefix}-${name}` && id !== f.ids[name]));
  if (aside && swapped) return 'proving';
  if (aside) return 'old aside';
  if (staged) return 'staged';
  return swapped ? 'after' : 'before';
}

/** What is wrong with the fleet now; `updated`: the update was finished (by a repairing --run-once). */
async function check(engine: Docker, f: Fleet, updated: boolean): Promise<string[]> {
  const problems: string[] = [];
  const all = await engine.listContainers({ all: true });
  const ours = all.flatMap((c) => c.Names).filter((n) => n.includes(f.prefix));
  const leftovers = ours.filter((n) => n.includes('--tidewatch-'));
  if (leftovers.length > 0) problems.push(`leftovers: ${leftovers.join(', ')}`);
  const started: Partial<Record<Name, number>> = {};
  for (const name of NAMES) {
    const full = `${f.prefix}-${name}`;
    const count = ours.filter((n) => n === `/${full}`).length;
    if (count !== 1) problems.push(`${name}: ${count} containers under its name`);
    const info = await engine.getContainer(full).inspect().catch(() => undefined);
    if (!info) continue;
    if (!info.State.Running) problems.push(`${name}: ${info.State.Status}, not running`);
    if (!info.Config.Env.includes('KEEP=1')) problems.push(`${name}: configuration lost (KEEP=1)`);
    const allowed =
      name === 'crash' ? [f.oldImage.crash] : updated ? [f.newImage[name]] : [f.oldImage[name], f.newImage[name]];
    if (!allowed.includes(info.Image)) problems.push(`${name}: on ${info.Image.slice(7, 19)}, expected ${allowed.map((i) => i.slice(7, 19)).join(' or ')}`);
    started[name] = Date.parse(info.State.StartedAt);
  }
  if (started.web !== undefined && started.db !== undefined && started.web < started.db) {
    problems.push('web was last started before db: dependency order lost');
  }
  return problems;
}

const BASE = (env: TestEnv, prefix: string, concurrency = 1) => [
  '--host', env.dockerHost, '--stop-timeout', '2s', '--update-grace-period', '1s', '--update-concurrency', String(concurrency), `${prefix}-.*`,
];

export type RoundPlan = Pick<RoundResult, 'trigger' | 'signal' | 'stopAfterMs' | 'concurrency'>;

/** What a seed's round does, drawn from the seed alone: the same seed replays the same round. */
export function planRound(seed: number): RoundPlan {
  const rnd = random(seed);
  const trigger = (['api', 'run-once', 'update-on-start'] as const)[Math.floor(rnd() * 3)]!;
  const signal = rnd() < 0.5 ? 'SIGKILL' : 'SIGTERM';
  const stopAfterMs = Math.floor(rnd() * 5000);
  const concurrency = rnd() < 0.5 ? 1 : 3;
  return { trigger, signal, stopAfterMs, concurrency };
}

export async function runRound(env: TestEnv, seed: number): Promise<RoundResult> {
  const { trigger, signal, stopAfterMs, concurrency } = planRound(seed);
  const engine = docker(env);
  const prefix = testPrefix(`chaos-${seed}`);
  try {
    const f = await fleet(env, engine, prefix);
    let child: { kill(signal: NodeJS.Signals): unknown };
    let exited: Promise<unknown>;
    if (trigger === 'run-once') {
      const run = spawnBinary([...BASE(env, prefix, concurrency), '--run-once'], {}, 120_000);
      child = run.child;
      exited = run.exited;
    } else {
      // Health probes alone leave the schedule to the service (update-on-start); `update` takes it over.
      const args = trigger === 'api'
        ? ['--http-api-endpoints', 'update', '--http-api-token', TOKEN]
        : ['--update-on-start', '--interval', '1h', '--http-api-endpoints', 'health'];
      const service = await startService([...args, ...BASE(env, prefix, concurrency)], {}, 60_000);
      if (trigger === 'api') void call(`${service.url}/v1/update?async=true`, { method: 'POST', token: TOKEN }).catch(() => undefined);
      child = service.child;
      exited = new Promise((resolve) => service.child.once('exit', resolve));
    }
    await new Promise((r) => setTimeout(r, stopAfterMs));
    const phase = await phaseOf(engine, f);
    child.kill(signal);
    await exited;
    let problems: string[];
    if (signal === 'SIGTERM') {
      problems = await check(engine, f, false);
    } else {
      const repair = await spawnBinary([...BASE(env, prefix), '--run-once'], {}, 120_000).exited;
      problems = await check(engine, f, true);
      if (repair.code !== 1) problems.push(`repairing run-once exited ${repair.code}, expected 1 (the crashing image fails)`);
    }
    return { seed, trigger, signal, concurrency, stopAfterMs, phase, problems };
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

/** The table a person reads: one line a round. */
export function table(results: readonly RoundResult[]): string {
  const lines = ['seed       trigger          signal   conc  stop at  phase at the stop  result'];
  for (const r of results) {
    const result = r.problems.length === 0 ? 'ok' : `FAILED: ${r.problems.join('; ')}`;
    lines.push(
      `${String(r.seed).padEnd(10)} ${r.trigger.padEnd(16)} ${r.signal.padEnd(8)} ${String(r.concurrency).padEnd(5)} ${`${r.stopAfterMs}ms`.padEnd(8)} ${r.phase.padEnd(18)} ${result}`,
    );
  }
  const failed = results.filter((r) => r.problems.length > 0).length;
  lines.push(`${results.length} rounds, ${failed} failed`);
  return lines.join('\n');
}
