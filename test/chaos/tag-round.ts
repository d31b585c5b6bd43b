// Chaos rounds for replacements that change the image *name* (docs/stopping.md#start-up-repair): a tag-policy
// update (`k:1.0.0` → `k:1.1.0`) and a rollback on demand (`k:1.1.0` → `k:1.0.0`), each stopped with SIGKILL
// at a random moment, then a `--run-once` on the same --data-dir that must repair what was left: one
// container under the name, running, nothing aside or staged, its `Config.Image` naming the image it runs.
// After a killed tag update the repairing run finishes it (on 1.1.0); after a killed rollback the container
// is on either version (the rollback was undone, or it went through), never down. With `child`, a second
// container joins the parent's network namespace (`--network container:<parent>`, a VPN sidecar's set-up):
// after the repair it runs, names the live parent and shares its namespace (docs/replacement.md#shared-namespaces).
import { mkdtemp, rm } from 'node:fs/promises';
import type Docker from 'dockerode';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docker, waitFor, type TestEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { namespaceOf } from '../helpers/namespace-of.js';
import { call, spawnBinary, startService } from '../helpers/service.js';
import { random, type Phase } from './round.js';

export type TagRoundKind = 'tag update' | 'rollback';

export interface TagRoundResult {
  readonly seed: number;
  readonly kind: TagRoundKind;
  /** A child joined the parent's network namespace. */
  readonly child: boolean;
  /** After the replacement was staged. */
  readonly stopAfterMs: number;
  readonly phase: Phase;
  readonly problems: string[];
}

const TOKEN = 'chaos-tag-token-0123456789abc';

async function phaseOf(engine: ReturnType<typeof docker>, name: string, firstId: string): Promise<Phase> {
  const ours = (await engine.listContainers({ all: true })).flatMap((c) => c.Names.map((n) => ({ n, id: c.Id })));
  const mine = ours.filter(({ n }) => n.startsWith(`/${name}`));
  const aside = mine.some(({ n }) => n.includes('--tidewatch-old-'));
  const swapped = mine.some(({ n, id }) => n === `/${name}` && id !== firstId);
  if (aside && swapped) return 'proving';
  if (aside) return 'old aside';
  if (mine.some(({ n }) => n.includes('--tidewatch-new-'))) return 'staged';
  return swapped ? 'after' : 'before';
}

/** What is wrong with the child after the repair: it must run in the live parent's network namespace. */
async function childProblems(engine: Docker, child: string, parent: Docker.ContainerInspectInfo): Promise<string[]> {
  const info = await engine.getContainer(child).inspect().catch(() => undefined);
  if (!info) return ['child: no container under its name'];
  if (!info.State.Running) return [`child: ${info.State.Status}, not running`];
  const problems: string[] = [];
  if (info.HostConfig.NetworkMode !== `container:${parent.Id}`) problems.push(`child: joined to ${info.HostConfig.NetworkMode}, not the live parent`);
  if ((await namespaceOf(engine, child, 'net')) !== (await namespaceOf(engine, parent.Id, 'net'))) problems.push('child: not in the parent\'s network namespace');
  return problems;
}

export async function runTagRound(env: TestEnv, seed: number, kind: TagRoundKind, withChild = false): Promise<TagRoundResult> {
  const rnd = random(seed);
  // Counted from the moment the replacement is staged (the pull before it takes a varying time): the
  // stop falls in the swap, the grace period, or just after.
  const stopAfterMs = Math.floor(rnd() * 2500);
  const engine = docker(env);
  const prefix = testPrefix(`chaos-tag-${seed}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'tw-chaos-tag-'));
  const repo = `${prefix}/k`;
  const name = `${prefix}-k`;
  const base = ['--host', env.dockerHost, '--data-dir', dataDir, '--stop-timeout', '2s', '--update-grace-period', '2s', `${prefix}-.*`];
  try {
    const push = (tag: string) => pushImage({ registry: env.registry, repo, tag, marker: `${repo} ${tag}`, cmd: QUICK_STOP_CMD });
    const v100 = await push('1.0.0');
    await pullImage(engine, v100.ref);
    await runContainer(engine, { name, image: v100.ref, env: ['KEEP=1'], labels: { 'tidewatch.tag.policy': 'minor' } });
    // The child runs the parent's 1.0.0 image, pinned: only the parent changes.
    const child = `${prefix}-child`;
    if (withChild) {
      await runContainer(engine, { name: child, image: v100.ref, labels: { 'tidewatch.tag.policy': 'pin' }, hostConfig: { NetworkMode: `container:${name}` } });
    }
    const v110 = await push('1.1.0');
    const service = await startService(['--http-api-endpoints', 'update,rollback', '--http-api-token', TOKEN, ...base], {}, 60_000);
    const post = (path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });
    if (kind === 'rollback') {
      const update = await post('/v1/update');
      if (update.status !== 200) throw new Error(`the update before the rollback answered ${update.status}: ${update.text}`);
    }
    const firstId = (await engine.getContainer(name).inspect()).Id;
    void post(kind === 'rollback' ? `/v1/rollback?container=${name}` : '/v1/update?async=true').catch(() => undefined);
    await waitFor(async () => (await phaseOf(engine, name, firstId)) !== 'before', 30_000, 50);
    await new Promise((r) => setTimeout(r, stopAfterMs));
    const phase = await phaseOf(engine, name, firstId);
    service.child.kill('SIGKILL');
    await new Promise((resolve) => service.child.once('exit', resolve));

    const repair = await spawnBinary([...base, '--run-once'], {}, 120_000).exited;
    const problems: string[] = [];
    if (repair.code !== 0) problems.push(`repairing run-once exited ${repair.code}`);
    const ours = (await engine.listContainers({ all: true })).flatMap((c) => c.Names).filter((n) => n.startsWith(`/${prefix}-`));
    const leftovers = ours.filter((n) => n.includes('--tidewatch-'));
    if (leftovers.length > 0) problems.push(`leftovers: ${leftovers.join(', ')}`);
    const info = await engine.getContainer(name).inspect().catch(() => undefined);
    if (!info) return { seed, kind, child: withChild, stopAfterMs, phase, problems: [...problems, 'no container under its name'] };
    if (!info.State.Running) problems.push(`${info.State.Status}, not running`);
    if (!info.Config.Env.includes('KEEP=1')) problems.push('configuration lost (KEEP=1)');
    const allowed = kind === 'tag update' ? [v110] : [v100, v110];
    const on = allowed.find((v) => v.configDigest === info.Image);
    if (!on) problems.push(`on ${info.Image.slice(7, 19)}, expected ${allowed.map((v) => v.tag).join(' or ')}`);
    else if (info.Config.Image !== on.ref) problems.push(`runs ${on.tag} as ${info.Config.Image}`);
    if (withChild) problems.push(...(await childProblems(engine, child, info)));
    return { seed, kind, child: withChild, stopAfterMs, phase, problems };
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** One line a round, as round.ts's table. */
export function tagTable(results: readonly TagRoundResult[]): string {
  const lines = ['seed       kind                +staged  phase at the stop  result'];
  for (const r of results) {
    const result = r.problems.length === 0 ? 'ok' : `FAILED: ${r.problems.join('; ')}`;
    const kind = r.child ? `${r.kind} +child` : r.kind;
    lines.push(`${String(r.seed).padEnd(10)} ${kind.padEnd(19)} ${`${r.stopAfterMs}ms`.padEnd(8)} ${r.phase.padEnd(18)} ${result}`);
  }
  lines.push(`${results.length} rounds, ${results.filter((r) => r.problems.length > 0).length} failed`);
  return lines.join('\n');
}
