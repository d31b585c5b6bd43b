// Volume snapshots through the binary on the main engine (docs/snapshots.md): the options' rules (exit 2 for
// --snapshot-volumes without --data-dir; a labelled container without one, or over --snapshot-max-size, is
// skipped and left running untouched), and through the HTTP API: an update's snapshot in GET /v1/snapshots and
// the audit trail, then POST /v1/rollback?restore=volumes putting v1 back on its own data, with the
// pre-rollback and post-rollback hooks run around it.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { mainScenario, pushNext } from '../helpers/scenarios.js';
import { call, runBinary, startService } from '../helpers/service.js';
import { appWithVolume, assertRestored, dataDirFor, runOnce, volumeFiles } from './snapshots.js';

const TOKEN = 'e2e-snapshots-token-0123456789';

t.test('--snapshot-volumes without --data-dir: exit 2 naming the option', async (t) => {
  const run = await runBinary(['--snapshot-volumes', '--run-once', '--host', 'unix:///nonexistent.sock'], {}, 30_000);
  t.equal(run.code, 2);
  const lines = run.stderr.trim().split('\n');
  t.equal(lines.length, 1, 'one line');
  t.match(lines[0], /--snapshot-volumes.*needs.*--data-dir/);
});

t.test('asked for and impossible: the update is skipped, the container left running untouched', async (t) => {
  const s = await mainScenario(t, 'snap-skip');
  if (!s) return;
  const app = await appWithVolume(t, s, 'app', { 'tidewatch.snapshot': 'volumes' });
  const before = await volumeFiles(s.engine, app.name);
  const id = (await s.engine.getContainer(app.name).inspect()).Id;

  const noDir = await runBinary(['--host', s.host, '--run-once', '--stop-timeout', '5s', app.name], {}, 120_000);
  t.equal(noDir.code, 0, noDir.stderr);
  t.match(noDir.stdout, /snapshot needs --data-dir/, 'skipped: snapshot needs --data-dir');

  const dataDir = await dataDirFor(t);
  const small = await runOnce(s, dataDir, app.name, ['--snapshot-max-size', '2KiB']);
  t.equal(small.code, 0, small.stderr);
  t.match(small.stdout, /snapshot too large/, 'skipped: snapshot too large');
  t.same(await readdir(join(dataDir, 'snapshots')), [], 'nothing kept of the snapshot that did not fit');

  const info = await s.engine.getContainer(app.name).inspect();
  t.equal(info.Id, id, 'the same container');
  t.ok(info.State.Running, 'running');
  const after = await volumeFiles(s.engine, app.name);
  t.equal(after.get('format')?.content, '1\n', 'v2 never ran');
  t.same(after.get('rows'), before.get('rows'));
});

t.test('API: the snapshot in /v1/snapshots and the audit; rollback with restore=volumes and the rollback hooks', async (t) => {
  const s = await mainScenario(t, 'snap-api');
  if (!s) return;
  const hooks = await mkdtemp(join(tmpdir(), 'tw-snap-hooks-'));
  t.teardown(() => rm(hooks, { recursive: true, force: true }));
  const labels = {
    'tidewatch.snapshot': 'volumes',
    'tidewatch.lifecycle.pre-rollback': 'cat /data/format > /hooks/pre-rollback',
    'tidewatch.lifecycle.post-rollback': 'cat /data/format > /hooks/post-rollback',
  };
  const app = await appWithVolume(t, s, 'app', labels, 0, { hooks });
  const before = await volumeFiles(s.engine, app.name);
  // This v2 migrates and runs: the update succeeds, then a person rolls it back.
  await pushNext(s, app, { files: { 'app.sh': V2_RUNS }, cmd: ['/bin/sh', '/app.sh'] });
  const dataDir = await dataDirFor(t);
  const service = await startService([
    '--host', s.host, '--data-dir', dataDir, '--enable-lifecycle-hooks', '--update-grace-period', '1s', '--stop-timeout', '5s',
    '--http-api-endpoints', 'update,rollback,audit,snapshots', '--http-api-token', TOKEN, app.name,
  ]);
  t.teardown(() => service.stop());
  const api = (path: string, method = 'GET') => call(`${service.url}${path}`, { method, token: TOKEN });

  const updated = await api(`/v1/update?container=${app.name}`, 'POST');
  t.equal(updated.status, 200, updated.text);
  const migrated = await waitFor(async () => ((await volumeFiles(s.engine, app.name)).get('format')?.content === '2\n' ? true : undefined), 20_000);
  t.ok(migrated, 'v2 runs on migrated data');

  const listed = await api(`/v1/snapshots?container=${app.name}`);
  t.equal(listed.status, 200, listed.text);
  const body = listed.body as { snapshots: { id: string; container: string; volumes: { name: string; bytes: number; sha256: string }[]; run_id: string }[]; count: number };
  t.equal(body.count, 1);
  const [snap] = body.snapshots;
  const regular = [...before.values()].filter((f) => f.type === 'file').reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
  t.match(snap, { container: app.name, volumes: [{ name: app.volume, bytes: regular, sha256: /^[0-9a-f]{64}$/ }] }, 'bytes is the sum of the regular files');
  t.equal((await api('/v1/snapshots?limit=1001')).status, 400, 'a limit over 1000 is 400');
  t.equal((await api('/v1/snapshots?cursor=@@')).status, 400, 'a bad cursor is 400');
  t.equal((await call(`${service.url}/v1/snapshots`)).status, 401, 'a token is required');

  const audit = (await api(`/v1/audit?container=${app.name}`)).body as { entries: { action: string; outcome: string; snapshot?: unknown }[] };
  t.match(audit.entries.at(-1), { action: 'update', outcome: 'updated', snapshot: { id: snap!.id, volumes: [app.volume] } }, 'the update names its snapshot');

  t.equal((await api(`/v1/rollback?container=${app.name}&restore=files`, 'POST')).status, 400, 'restore takes volumes only');
  const rolled = await api(`/v1/rollback?container=${app.name}&restore=volumes`, 'POST');
  t.equal(rolled.status, 200, rolled.text);
  t.match(rolled.body, { snapshot: { id: snap!.id, restored: true } });
  const info = await s.engine.getContainer(app.name).inspect();
  t.equal(info.Config.Image, app.image.ref, 'v1 again');
  await assertRestored(t, s, app.name, before);
  t.equal(await readFile(join(hooks, 'pre-rollback'), 'utf8'), '2\n', 'pre-rollback ran in v2, on its data');
  t.equal(await readFile(join(hooks, 'post-rollback'), 'utf8'), '1\n', 'post-rollback ran in the restored v1, on the restored data');
  const trail = (await api(`/v1/audit?container=${app.name}`)).body as { entries: { action: string; snapshot?: unknown }[] };
  t.match(trail.entries.at(-1), { action: 'rollback', snapshot: { id: snap!.id, restored: true } }, 'the rollback names the snapshot it restored');
});

/** A v2 that migrates and then runs. */
const V2_RUNS = `trap 'exit 0' TERM
echo 2 > /data/format; rm -f /data/rows; echo rows-v2-migrated > /data/rows; mkdir -p /data/v2-index; echo idx > /data/v2-index/i
rm -f /data/sub/kept; echo started-v2 >> /data/starts
sleep 3600 & wait
`;
