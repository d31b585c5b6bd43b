// The JSON files written by the release before the database (test/fixtures/state-json, made by that
// release's own store) are migrated once at the first start (docs/state.md#from-the-json-files): every
// container's state, the run history, the plugins' records and the audit trail read back as they were
// written, the files are kept renamed, and a second start does not migrate again.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openStateStore } from '../../plugins/state/store.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { REPO_ROOT } from '../helpers/service.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/state-json');

async function fixtureDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-migrate-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(FIXTURES, dir, { recursive: true });
  return dir;
}

t.test('state.json and audit.jsonl of the earlier release are migrated whole, once', async (t) => {
  const dir = await fixtureDir(t);
  const snapshot = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  const lines = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
  const logger = memoryLogger();
  const store = await openStateStore({ dir, logger });

  for (const [id, check] of Object.entries(snapshot.checks ?? {})) t.same(store.lastCheck(id), check, `last check of ${id}`);
  for (const [id, previous] of Object.entries(snapshot.previous ?? {})) t.same(store.previousImage(id), previous, `previous image of ${id}`);
  for (const [id, hold] of Object.entries(snapshot.holds ?? {})) t.same(store.hold(id), hold, `hold of ${id}`);
  for (const [id, failed] of Object.entries(snapshot.failed ?? {})) t.same(store.failedCandidate(id), failed, `failed candidate of ${id}`);
  t.same(store.retainedImages(), snapshot.retained);
  t.same(
    store.history().map((h) => ({ ...h, startedAt: h.startedAt.toISOString(), finishedAt: h.finishedAt.toISOString() })),
    snapshot.history,
    'the run history, oldest first',
  );
  for (const [name, value] of Object.entries(snapshot.extensions ?? {})) t.same(store.extension(name), value, `plugin record ${name}`);
  t.same(await store.audit(), lines, 'the audit trail, oldest first');
  t.equal(Object.keys(snapshot.checks ?? {}).length, 3, 'the fixture has content to compare');
  t.equal(lines.length, 6);
  t.match(logger.lines.find((l) => /moved from the JSON files/.test(l.msg ?? ''))?.obj, { containers: 3, runs: 3, audit: 6 });

  const files = (await readdir(dir)).sort();
  t.same(files.filter((f) => !f.startsWith('state.db')), ['audit.jsonl.migrated', 'state.json.migrated'], 'the JSON files are kept, renamed');
  store.recordCheck('id-new', { name: 'new', updateAvailable: false, latestDigest: '', checkedAt: '2026-11-02T00:00:00.000Z' });
  await store.close();

  // Someone puts an old state.json back: the database is the state now, and the file is not read again.
  await writeFile(join(dir, 'state.json'), JSON.stringify({ ...snapshot, checks: {} }));
  const again = await openStateStore({ dir });
  t.ok(again.lastCheck('id-web'), 'not migrated a second time over the database');
  t.ok(again.lastCheck('id-new'), 'what was recorded after the migration stays');
  t.equal((await again.audit()).length, 6);
  await again.close();
});

t.test('a directory without JSON files starts empty and is marked migrated', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-migrate-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await openStateStore({ dir });
  t.same(store.history(), []);
  t.ok(store.db.prepare("SELECT value FROM meta WHERE key = 'json_migrated'").get());
  await store.close();
});
