// The store reads the lists that grow by index, in pages (docs/state.md#pages): newest page first, oldest
// first within a page, filters before paging, a cursor it did not give refused; a plugin's keyed records;
// and writes bounded by what changed: a repeated check that changed nothing writes nothing.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { AuditEntry, Page } from '../../contracts/index.js';
import { openStateStore, type SqliteStateStore } from '../../plugins/state/store.js';

const minute = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();

async function allPages<T>(read: (cursor?: string) => Promise<Page<T>> | Page<T>): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    pages.push(page.entries);
    cursor = page.next;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

t.test('the audit trail pages newest first, newest last within a page, filters before paging', async (t) => {
  const store = await openStateStore();
  for (let i = 0; i < 25; i++) {
    await store.appendAudit({ action: 'update', container: `c${i % 2}`, trigger: 'api', run_id: String(i), outcome: 'updated', time: minute(i) });
  }
  const runs = (pages: AuditEntry[][]) => pages.map((p) => p.map((e) => Number(e.run_id)));
  t.same(runs(await allPages((cursor) => store.auditPage({ limit: 10, ...(cursor ? { cursor } : {}) }))), [
    [15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
    [5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    [0, 1, 2, 3, 4],
  ]);
  t.same(runs(await allPages((cursor) => store.auditPage({ limit: 4, container: 'c1', since: Date.parse(minute(10)), ...(cursor ? { cursor } : {}) }))), [
    [17, 19, 21, 23],
    [11, 13, 15],
  ], 'the filter chose the entries, then they were paged');
  const exact = await store.auditPage({ limit: 5, until: Date.parse(minute(4)) });
  t.same(exact.entries.map((e) => e.run_id), ['0', '1', '2', '3', '4']);
  t.equal(exact.next, undefined, 'no next on the last page');
  await t.rejects(store.auditPage({ limit: 5, cursor: 'not-a-cursor' }), { code: 'TW_ERR_STATE_CURSOR', statusCode: 400 });
});

t.test('run summaries page by their start, newest page first', async (t) => {
  const store = await openStateStore();
  for (let i = 0; i < 7; i++) {
    const at = new Date(minute(i));
    store.recordHistory({ runId: `r${i}`, kind: 'check', targeted: false, trigger: 'api', startedAt: at, finishedAt: at, summary: { scanned: 1, updated: 0, failed: 0, restarted: 0, skipped: 0 } });
  }
  const pages = await allPages((cursor) => store.historyPage({ limit: 3, ...(cursor ? { cursor } : {}) }));
  t.same(pages.map((p) => p.map((e) => e.runId)), [['r4', 'r5', 'r6'], ['r1', 'r2', 'r3'], ['r0']]);
  t.same((await store.historyPage({ limit: 10, since: Date.parse(minute(5)) })).entries.map((e) => e.runId), ['r5', 'r6']);
  t.same(store.history().map((e) => e.runId), ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6'], 'history() oldest first');
});

t.test("a plugin's keyed records: set, read, removed, paged newest first in the order first set", async (t) => {
  const store = await openStateStore();
  for (let i = 0; i < 5; i++) store.setRecord('people.tokens', `t${i}`, { n: i });
  store.setRecord('other', 'x', 1);
  store.setRecord('people.tokens', 't1', { n: 10 });
  store.setRecord('people.tokens', 't3', undefined);
  t.same(store.record('people.tokens', 't1'), { n: 10 });
  t.equal(store.record('people.tokens', 't3'), undefined);
  const pages = await allPages((cursor) => store.recordsPage('people.tokens', { limit: 2, ...(cursor ? { cursor } : {}) }));
  t.same(pages.map((p) => p.map((r) => r.key)), [['t2', 't4'], ['t0', 't1']], 'the collection only; a record set again keeps its place');
});

async function diskBytes(store: SqliteStateStore, dir: string): Promise<number> {
  let bytes = 0;
  for (const file of ['state.db', 'state.db-wal']) bytes += await stat(join(dir, file)).then((s) => s.size, () => 0);
  void store;
  return bytes;
}

t.test('a repeated check that changed nothing writes nothing; its time is kept and written at flush', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-pages-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await openStateStore({ dir });
  const check = (i: number, at: string) => ({ name: `app-${i}`, updateAvailable: false, latestDigest: `sha256:${i}`, checkedAt: at });
  for (let i = 0; i < 500; i++) store.recordCheck(`id${i}`, check(i, minute(0)));
  await store.flush();
  store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const before = await diskBytes(store, dir);
  for (let i = 0; i < 500; i++) store.recordCheck(`id${i}`, check(i, minute(1)));
  await new Promise((r) => setImmediate(r));
  t.equal(await diskBytes(store, dir), before, 'not a byte written for 500 unchanged checks');
  t.equal(store.lastCheck('id7')?.checkedAt, minute(1), 'the newer check time is what reads back');
  store.recordCheck('id7', { ...check(7, minute(2)), updateAvailable: true });
  await new Promise((r) => setImmediate(r));
  const grown = (await diskBytes(store, dir)) - before;
  t.ok(grown > 0 && grown <= 64 * 1024, `one changed container wrote ${grown} bytes`);
  await store.close();
  const again = await openStateStore({ dir });
  t.equal(again.lastCheck('id8')?.checkedAt, minute(1), 'flush wrote the kept times');
  t.equal(again.lastCheck('id7')?.updateAvailable, true);
  await again.close();
});

t.test('extension(name) records survive a reopen and keep their meaning', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-pages-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await openStateStore({ dir });
  const value = { pending: [{ container: 'web' }] };
  store.setExtension('policies.approvals', value);
  t.equal(store.extension('policies.approvals'), value, 'the very value set');
  store.setExtension('gone', { a: 1 });
  store.setExtension('gone', undefined);
  await store.close();
  const again = await openStateStore({ dir });
  t.same(again.extension('policies.approvals'), value);
  t.equal(again.extension('gone'), undefined);
  await again.close();
});
