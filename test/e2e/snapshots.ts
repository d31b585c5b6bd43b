// The migrate-then-fail story of docs/snapshots.md on one engine set-up (test/e2e/snapshots-*.test.ts call it
// once each, so tap's jobs run the engines side by side). A scripted busybox app: v1 writes data format 1 and
// refuses to start on format 2; v2 migrates the data to format 2 (a new file, a changed one, another owner and
// mode) and then exits, failing its proof. Without the label the rollback puts v1 back on migrated data it
// cannot read: it does not start (why the feature exists). With `tidewatch.snapshot=volumes` the rollback
// restores the volume first: v1 runs on its own data, exactly as it was.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Test } from 'tap';
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { ENGINE_SETUPS, pushNext, runningOn, type EngineScenario, type EngineSetup, type RunningOn } from '../helpers/scenarios.js';
import { runBinary } from '../helpers/service.js';

/**
 * v1: format 1 only. Creates its data once (with $BLOB_BYTES of random bytes in `blob` when set), refuses format 2
 * with exit 3. The test then gives `rows` owner 1234:2345 and mode 640, `sub` mode 700 (owners.ts below).
 */
export const APP_V1 = `trap 'exit 0' TERM
if [ -f /data/format ] && [ "$(cat /data/format)" != 1 ]; then echo "v1 cannot read data format $(cat /data/format)"; exit 3; fi
if [ ! -f /data/format ]; then
  echo 1 > /data/format; echo rows-v1 > /data/rows; mkdir -p /data/sub; echo kept > /data/sub/kept
  if [ -n "$BLOB_BYTES" ]; then head -c "$BLOB_BYTES" /dev/urandom > /data/blob; fi
fi
echo started-v1 >> /data/starts
echo ready
sleep 3600 & wait
`;

/** v2: migrates to format 2, then fails (exit 1) before its proof. */
export const APP_V2 = `echo 2 > /data/format; rm -f /data/rows; echo rows-v2-migrated > /data/rows
mkdir -p /data/v2-index; echo idx > /data/v2-index/i; rm -f /data/sub/kept; echo started-v2 >> /data/starts
echo "v2 migrated, now failing"; exit 1
`;

export interface FileFacts {
  readonly type: string;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly content: string;
}

/** Every entry of the volume at `path` in container `id`, by its path below the mount point. */
export async function volumeFiles(engine: Docker, id: string, path = '/data'): Promise<Map<string, FileFacts>> {
  const { extract } = await import('tar-stream');
  const archive = (await engine.getContainer(id).getArchive({ path })) as NodeJS.ReadableStream;
  const parser = extract();
  archive.pipe(parser);
  const files = new Map<string, FileFacts>();
  for await (const entry of parser) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const name = entry.header.name.replace(/^data\/?/, '').replace(/\/$/, '');
    const { type = 'file', mode = 0, uid = 0, gid = 0 } = entry.header;
    const bytes = Buffer.concat(chunks);
    // A large file is compared by its digest.
    const content = bytes.length > 65536 ? `sha256:${createHash('sha256').update(bytes).digest('hex')}` : bytes.toString('utf8');
    files.set(name, { type, mode: mode & 0o7777, uid, gid, content });
  }
  return files;
}

/** Gives `rows` owner 1234:2345 and mode 640 and `sub` mode 700 through the archive API (busybox has no chown here). */
async function setOwners(engine: Docker, id: string): Promise<void> {
  const { pack } = await import('tar-stream');
  const p = pack();
  p.entry({ name: 'sub/', type: 'directory', mode: 0o700, uid: 0, gid: 0 });
  p.entry({ name: 'rows', mode: 0o640, uid: 1234, gid: 2345 }, 'rows-v1\n');
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of p) chunks.push(chunk as Buffer);
  await engine.getContainer(id).putArchive(Buffer.concat(chunks), { path: '/data' });
}

export async function appWithVolume(
  t: Test,
  s: EngineScenario,
  name: string,
  labels: Record<string, string>,
  blobBytes = 0,
  binds: { hooks?: string } = {},
): Promise<RunningOn & { volume: string }> {
  const volume = `${s.prefix}-${name}-data`;
  await s.engine.createVolume({ Name: volume });
  t.teardown(async () => {
    const listed = await s.engine.listContainers({ all: true, filters: { volume: [volume] } });
    for (const c of listed) await s.engine.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    await s.engine.getVolume(volume).remove().catch(() => undefined);
  });
  const running = await runningOn(s, name, {
    image: { files: { 'app.sh': APP_V1 }, cmd: ['/bin/sh', '/app.sh'] },
    run: { labels, env: blobBytes ? [`BLOB_BYTES=${blobBytes}`] : [], hostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: '/data' }, ...(binds.hooks ? [{ Type: 'bind' as const, Source: binds.hooks, Target: '/hooks' }] : [])] }, stopTimeout: 5 },
  });
  await waitFor(async () => (await volumeFiles(s.engine, running.name)).has('starts'), 60_000);
  await setOwners(s.engine, running.name);
  const facts = await volumeFiles(s.engine, running.name);
  t.same(
    { rows: [facts.get('rows')?.uid, facts.get('rows')?.gid, facts.get('rows')?.mode], sub: facts.get('sub')?.mode },
    { rows: [1234, 2345, 0o640], sub: 0o700 },
    'the data has an owner and modes of its own',
  );
  await pushNext(s, running, { files: { 'app.sh': APP_V2 }, cmd: ['/bin/sh', '/app.sh'] });
  return { ...running, volume };
}

export function runOnce(s: EngineScenario, dataDir: string, name: string, extra: string[] = []) {
  return runBinary(['--host', s.host, '--run-once', '--data-dir', dataDir, '--update-grace-period', '2s', '--stop-timeout', '5s', ...extra, name], {}, 180_000);
}

export async function dataDirFor(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-snapshots-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The migrate-then-fail story on ENGINE_SETUPS[index]. */
export function snapshotScenarios(index: number): void {
  const under = ENGINE_SETUPS[index] as EngineSetup;

  t.test(`${under.label}: without a snapshot, the rolled-back v1 cannot read the data v2 migrated`, async (t) => {
    const s = await under.scenario(t, 'snap-none');
    if (!s) return;
    const app = await appWithVolume(t, s, 'app', {});
    const run = await runOnce(s, await dataDirFor(t), app.name);
    t.equal(run.code, 1, `run-once reports the failed update (exit 1)\n${run.stdout.slice(-3000)}\n${run.stderr}`);
    const info = await waitFor(async () => {
      const i = await s.engine.getContainer(app.name).inspect();
      return !i.State.Running && i.State.ExitCode === 3 ? i : undefined;
    }, 20_000);
    t.equal(info.Config.Image, app.image.ref, 'the old container (v1) was put back');
    const files = await volumeFiles(s.engine, app.name);
    t.equal(files.get('format')?.content, '2\n', 'the volume holds the migrated format');
    t.ok(files.has('v2-index'), 'and what v2 added');
    t.equal(files.get('rows')?.uid, 0, 'v2 rewrote rows as root: owners change with a migration');
  });

  t.test(`${under.label}: with tidewatch.snapshot=volumes, v1 runs again on its own data, exactly as it was`, async (t) => {
    const s = await under.scenario(t, 'snap-vol');
    if (!s) return;
    const app = await appWithVolume(t, s, 'app', { 'tidewatch.snapshot': 'volumes' });
    const before = await volumeFiles(s.engine, app.name);
    const dataDir = await dataDirFor(t);
    const run = await runOnce(s, dataDir, app.name);
    t.equal(run.code, 1, `run-once reports the failed update (exit 1)\n${run.stdout.slice(-3000)}\n${run.stderr}`);
    t.match(run.stdout + run.stderr, /volumes snapshotted/, 'the snapshot was taken');
    t.match(run.stdout + run.stderr, /volumes restored from the snapshot/, 'and restored with the rollback');
    const info = await waitFor(async () => {
      const i = await s.engine.getContainer(app.name).inspect();
      return i.State.Running ? i : undefined;
    }, 20_000);
    t.equal(info.Config.Image, app.image.ref, 'the old container (v1) runs');
    await assertRestored(t, s, app.name, before);
  });
}

/** The volume as at the snapshot, v1 started once more on it (its `starts` line is the only difference). */
export async function assertRestored(t: Test, s: EngineScenario, name: string, before: Map<string, FileFacts>): Promise<void> {
  const after = await waitFor(async () => {
    const files = await volumeFiles(s.engine, name);
    return (files.get('starts')?.content.split('\n').length ?? 0) > (before.get('starts')?.content.split('\n').length ?? 0) ? files : undefined;
  }, 20_000);
  t.equal(after.get('format')?.content, '1\n', 'format 1 again');
  t.notOk(after.has('v2-index'), 'what v2 added is gone');
  t.notOk(after.has('v2-index/i'), 'with its files');
  t.same(after.get('rows'), before.get('rows'), 'the changed file is back, owner and mode kept (1234:2345, 640)');
  t.same(after.get('sub/kept'), before.get('sub/kept'), 'the removed file is back');
  t.same(after.get('sub'), before.get('sub'), 'directory mode kept (700)');
  t.same(after.get('')?.mode, before.get('')?.mode, 'the volume root keeps its mode');
  t.equal(after.get('starts')?.content, `${before.get('starts')?.content}started-v1\n`, 'v2 never left its mark: only v1 started since');
  t.same([...after.keys()].sort(), [...before.keys()].sort(), 'the same entries, no more, no less');
}
