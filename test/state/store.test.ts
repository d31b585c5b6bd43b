// The state store on disk (docs/state.md): a reopened store reads what was saved, the JSON files of the
// release before the database (a version-1 snapshot by name, a corrupt one, a torn audit line) are migrated
// once, and the audit trail stays bounded.
import { appendFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openStateStore } from '../../plugins/state/store.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { tempDir } from '../helpers/fixtures.js';

const check = { name: 'web', updateAvailable: true, latestDigest: 'sha256:aa', checkedAt: '2026-01-01T00:00:00.000Z' };

t.test('what is recorded survives a reopen', async (t) => {
  const dir = await tempDir(t, 'state');
  const store = await openStateStore({ dir });
  store.recordCheck('id1', check);
  store.setHold('id1', { imageId: 'sha256:old', digest: 'sha256:d', image: 'r/web:1', since: check.checkedAt });
  store.setPreviousImage('id1', { image: 'r/web:1', imageId: 'sha256:p', digest: '', replacedAt: check.checkedAt });
  store.setFailedCandidate('id1', { image: 'r/web:1', digest: 'sha256:f', imageId: '', reason: 'exited', since: check.checkedAt });
  await store.appendAudit({ action: 'update', container: 'web', trigger: 'api', run_id: 'r1', outcome: 'updated' });
  await store.flush();
  const again = await openStateStore({ dir });
  t.same(again.lastCheck('id1'), check);
  t.match(again.hold('id1'), { imageId: 'sha256:old' });
  t.match(again.previousImage('id1'), { imageId: 'sha256:p' });
  t.match(again.failedCandidate('id1'), { digest: 'sha256:f', reason: 'exited' });
  t.equal(again.previousImage('id2'), undefined, 'another container (another id) has none, whatever its name');
  t.match(await again.audit(), [{ action: 'update', container: 'web', trigger: 'api', run_id: 'r1', id: String, time: String }]);
});

t.test('a replacement hands the old container\'s state to the new one, and only that', async (t) => {
  const store = await openStateStore();
  store.setPreviousImage('old', { image: 'r/web:1', imageId: 'sha256:p', digest: '', replacedAt: check.checkedAt });
  store.setHold('old', { imageId: 'sha256:h', digest: '', image: 'r/web:1', since: check.checkedAt });
  store.followReplacement('old', 'new');
  t.match(store.previousImage('new'), { imageId: 'sha256:p' });
  t.match(store.hold('new'), { imageId: 'sha256:h' });
  t.equal(store.previousImage('old'), undefined, 'the old id keeps nothing');
  t.equal(store.hold('other'), undefined);
});

t.test('a version-1 snapshot (by name) goes to the container of that name checked last', async (t) => {
  const dir = await tempDir(t, 'state');
  const previous = { image: 'r/web:1', imageId: 'sha256:p', digest: '', replacedAt: check.checkedAt };
  await writeFile(join(dir, 'state.json'), JSON.stringify({
    version: 1,
    checks: {
      older: { ...check, checkedAt: '2026-01-01T00:00:00.000Z' },
      newer: { ...check, checkedAt: '2026-01-02T00:00:00.000Z' },
      other: { ...check, name: 'db', host: 'unix:///b' },
    },
    previous: { web: previous, 'unix:///a|db': previous, gone: previous },
    holds: { web: { imageId: 'sha256:h', digest: '', image: 'r/web:1', since: check.checkedAt } },
    retained: [],
    history: [],
  }));
  const store = await openStateStore({ dir });
  t.match(store.previousImage('newer'), { imageId: 'sha256:p' }, 'the container of that name checked last');
  t.match(store.hold('newer'), { imageId: 'sha256:h' });
  t.equal(store.previousImage('older'), undefined);
  t.equal(store.previousImage('other'), undefined, 'a name on another engine is another container');
  await store.close();
  const again = await openStateStore({ dir });
  t.match(again.previousImage('newer'), { imageId: 'sha256:p' }, 'kept by id in the database');
  t.same(await readdir(dir).then((f) => f.filter((n) => n.startsWith('state.json'))), ['state.json.migrated'], 'the file is kept aside, renamed');
});

t.test('a corrupt snapshot is moved aside with one warning; the store starts empty', async (t) => {
  const dir = await tempDir(t, 'state');
  await writeFile(join(dir, 'state.json'), '{"version":1,"checks":{');
  const logger = memoryLogger();
  const store = await openStateStore({ dir, logger });
  t.equal(store.lastCheck('id1'), undefined);
  const files = await readdir(dir);
  t.ok(files.some((f) => f.startsWith('state.json.corrupt-')), `moved aside: ${files.join(' ')}`);
  t.equal(logger.lines.filter((l) => l.level === 'warn').length, 1, 'one warning');
});

t.test('a torn last audit line is left out of the migration; the entries before it stay', async (t) => {
  const dir = await tempDir(t);
  const entry = { id: 'a1', time: '2026-01-01T00:00:00.000Z', action: 'update', container: 'a', trigger: 'api', run_id: 'r', outcome: 'updated' };
  await writeFile(join(dir, 'audit.jsonl'), `${JSON.stringify(entry)}\n`);
  await appendFile(join(dir, 'audit.jsonl'), '{"id":"x","time":"2026');
  const again = await openStateStore({ dir });
  await again.appendAudit({ action: 'restart', container: 'b', trigger: 'api', run_id: 'r', outcome: 'restarted' });
  t.same((await again.audit()).map((e) => e.container), ['a', 'b']);
  t.notOk((await again.audit()).some((e) => e.id === 'x'), 'the torn entry is not there');
});

t.test('the audit trail keeps the newest entries past its bound; queries filter and limit', async (t) => {
  const dir = await tempDir(t, 'state');
  const store = await openStateStore({ dir, auditCapacity: 10 });
  for (let i = 0; i < 25; i++) {
    await store.appendAudit({ action: 'update', container: `c${i % 2}`, trigger: 'api', run_id: String(i), outcome: 'updated', time: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() });
  }
  const all = await store.audit();
  t.ok(all.length >= 10 && all.length <= 11, `bounded: ${all.length}`);
  t.equal(all.at(-1)?.run_id, '24', 'newest last');
  t.same((await store.audit({ container: 'c0', limit: 2 })).map((e) => e.run_id), ['22', '24']);
  t.same((await store.audit({ since: Date.UTC(2026, 0, 1, 0, 23) })).map((e) => e.run_id), ['23', '24']);
  const { n } = store.db.prepare('SELECT count(*) AS n FROM audit').get() as { n: number };
  t.equal(n, all.length, 'the table itself was trimmed');
});

t.test('without a data directory nothing is written', async (t) => {
  const store = await openStateStore();
  t.equal(store.dir, undefined);
  store.recordCheck('id', check);
  await store.appendAudit({ action: 'update', container: 'a', trigger: 'api', run_id: 'r', outcome: 'updated' });
  t.same(store.lastCheck('id'), check);
  t.equal((await store.audit()).length, 1);
  t.equal(store.db.location(), null, 'an in-memory database');
});
