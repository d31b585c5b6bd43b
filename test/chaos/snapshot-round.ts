// The chaos suite's SIGKILL rounds around volume snapshots (docs/snapshots.md#crash-safety): the migrate-then-fail
// app of test/e2e/snapshots.ts with a volume large enough to take a moment (128 MiB of random bytes), an update
// killed while its snapshot is written, or while the rollback restores it; then a start (`--run-once
// --monitor-only`: its start-up repair, no new update) must leave the app running v1 on exactly its data.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { random } from './round.js';
import { appWithVolume, dataDirFor, volumeFiles, type FileFacts } from '../e2e/snapshots.js';
import type { EngineScenario } from '../helpers/scenarios.js';
import { runBinary, spawnBinary } from '../helpers/service.js';

export type SnapshotRoundKind = 'snapshot' | 'restore';
const BLOB = 128 * 1024 * 1024;

const args = (s: EngineScenario, dataDir: string) => ['--host', s.host, '--data-dir', dataDir, '--update-grace-period', '2s', '--stop-timeout', '5s'];

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 15));
  }
  return false;
}

/** One round: what went wrong, and where the kill landed. */
export async function snapshotRound(t: Test, s: EngineScenario, seed: number, kind: SnapshotRoundKind): Promise<{ problems: string[]; landed: string }> {
  const rnd = random(seed);
  const app = await appWithVolume(t, s, `c${seed}`, { 'tidewatch.snapshot': 'volumes' }, BLOB);
  const before = await volumeFiles(s.engine, app.name);
  const dataDir = await dataDirFor(t);
  const snapshotsDir = join(dataDir, 'snapshots');
  const run = spawnBinary([...args(s, dataDir), '--run-once', app.name], {}, 180_000);
  const ours = async () => (await s.engine.listContainers({ all: true })).flatMap((c) => c.Names).filter((n) => n.includes(app.name));
  let landed = 'the moment was missed';
  if (kind === 'snapshot') {
    if (await until(async () => (await readdir(snapshotsDir)).some((e) => e.endsWith('.partial')), 60_000)) landed = 'while the snapshot was written';
  } else {
    // The new container is gone, the old one still aside: the restore runs now.
    const restoring = async () => {
      const names = await ours();
      return names.some((n) => n.includes('--tidewatch-old-')) && !names.includes(`/${app.name}`) && !names.some((n) => n.includes('--tidewatch-new-'));
    };
    if (await until(restoring, 90_000)) landed = 'while the volume was restored';
  }
  await new Promise((r) => setTimeout(r, Math.floor(rnd() * 150)));
  run.child.kill('SIGKILL');
  await run.exited.catch(() => undefined);
  const repair = await runBinary([...args(s, dataDir), '--run-once', '--monitor-only', app.name], {}, 180_000);
  const problems: string[] = [];
  if (repair.code !== 0) problems.push(`the repairing start exited ${repair.code}: ${repair.stderr.slice(-500)}`);
  const leftovers = (await ours()).filter((n) => n.includes('--tidewatch-'));
  if (leftovers.length > 0) problems.push(`leftovers: ${leftovers.join(', ')}`);
  const partial = (await readdir(snapshotsDir).catch(() => [] as string[])).filter((e) => e.endsWith('.partial'));
  if (partial.length > 0) problems.push(`partial snapshots left: ${partial.join(', ')}`);
  const info = await s.engine.getContainer(app.name).inspect().catch(() => undefined);
  if (!info?.State.Running) problems.push(`${app.name} is ${info?.State.Status ?? 'gone'}`);
  else if (info.Config.Image !== app.image.ref) problems.push(`${app.name} runs ${info.Config.Image}, not v1`);
  if (info?.State.Running) problems.push(...(await sameData(s, app.name, before)));
  return { problems, landed };
}

/** The volume as `before`, v1 having started on it again (only `started-v1` lines added to `starts`). */
async function sameData(s: EngineScenario, name: string, before: Map<string, FileFacts>): Promise<string[]> {
  const after = await volumeFiles(s.engine, name);
  const problems: string[] = [];
  for (const [path, facts] of before) {
    if (path === 'starts') continue;
    if (JSON.stringify(after.get(path)) !== JSON.stringify(facts)) problems.push(`${path || '/'} differs: ${JSON.stringify(after.get(path))?.slice(0, 200)}`);
  }
  for (const path of after.keys()) if (!before.has(path)) problems.push(`${path} was added`);
  const starts = after.get('starts')?.content ?? '';
  if (!starts.startsWith(before.get('starts')?.content ?? '') || starts.includes('started-v2')) problems.push(`starts: ${JSON.stringify(starts)}`);
  return problems;
}
