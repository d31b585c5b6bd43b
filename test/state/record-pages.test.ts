// The lists plugins keep in the store page by index (docs/state.md#plugins-records, docs/http-api.md#pages):
// a collection's records filtered on their fields before paging, newest page first, oldest first within a
// page, a cursor it did not give refused; the personal tokens (live ones only) and the approvals (by state
// and container) read that way, each change writing its one record; and the single records an earlier
// version rewrote whole are moved once into the collections.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from '../../contracts/index.js';
import { TOKENS_COLLECTION, TOKENS_RECORD, TokenRegistry, hashOf } from '../../plugins/people/tokens.js';
import { ApprovalLedger, LEDGER_COLLECTION, LEDGER_EXTENSION, LEDGER_CAPACITY } from '../../plugins/policies/approval-ledger.js';
import { openStateStore } from '../../plugins/state/store.js';

async function allPages<T>(read: (cursor?: string) => Page<T>): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | undefined;
  do {
    const page = read(cursor);
    pages.push(page.entries);
    cursor = page.next;
  } while (cursor !== undefined && pages.length < 1000);
  return pages;
}

const DIGEST = (n: number) => `sha256:${String(n % 10).repeat(64)}`;

t.test('records filter on their fields before paging, by index, and keep their place when set again', async (t) => {
  const store = await openStateStore();
  for (let i = 0; i < 12; i++) store.setRecord('c', `k${i}`, { i }, { parity: i % 2 ? 'odd' : 'even', third: String(i % 3) });
  store.setRecord('other', 'k1', { i: 99 }, { parity: 'odd' });
  const keys = (pages: { key: string }[][]) => pages.map((p) => p.map((r) => r.key));
  t.same(keys(await allPages((cursor) => store.recordsPage('c', { limit: 2, where: { parity: 'odd' }, ...(cursor ? { cursor } : {}) }))), [
    ['k9', 'k11'],
    ['k5', 'k7'],
    ['k1', 'k3'],
  ], 'odd ones only, this collection only, newest page first');
  t.same(keys(await allPages((cursor) => store.recordsPage('c', { limit: 5, where: { parity: 'odd', third: '0' }, ...(cursor ? { cursor } : {}) }))), [['k3', 'k9']], 'two fields: both must match');
  // Set again with other fields: the same place, the new fields.
  store.setRecord('c', 'k3', { i: 3, again: true }, { parity: 'even' });
  t.same(store.recordsPage('c', { limit: 3, where: { parity: 'even' } }).entries.map((r) => r.key), ['k6', 'k8', 'k10']);
  t.same(store.recordsPage('c', { limit: 100, where: { parity: 'odd' } }).entries.map((r) => r.key), ['k1', 'k5', 'k7', 'k9', 'k11'], 'no longer odd');
  t.same(keys(await allPages((cursor) => store.recordsPage('c', { limit: 5, where: { parity: 'even' }, ...(cursor ? { cursor } : {}) }))), [
    ['k3', 'k4', 'k6', 'k8', 'k10'],
    ['k0', 'k2'],
  ], 'k3 in its first place among the even ones');
  store.setRecord('c', 'k8', undefined);
  t.same(store.recordsPage('c', { limit: 100, where: { parity: 'even' } }).entries.map((r) => r.key), ['k0', 'k2', 'k3', 'k4', 'k6', 'k10'], 'a removed record leaves its fields');
  t.same(store.recordsPage('c', { limit: 0 }), { entries: [] }, 'limit 0: an empty page');
  t.throws(() => store.recordsPage('c', { limit: 5, cursor: 'bm90LWEtY3Vyc29y' }), { code: 'TW_ERR_STATE_CURSOR', statusCode: 400 });
  t.throws(() => store.recordsPage('c', { limit: 5, cursor: '!!' }), { code: 'TW_ERR_STATE_CURSOR' });
  const plan = store.db.prepare(
    "EXPLAIN QUERY PLAN SELECT r.seq FROM record_fields f CROSS JOIN records r ON r.seq = f.seq WHERE f.collection = 'c' AND f.name = 'parity' AND f.value = 'odd' AND f.seq < 5 ORDER BY f.seq DESC LIMIT 3",
  ).all() as { detail: string }[];
  const detail = plan.map((p) => p.detail).join(' | ');
  t.match(detail, /SEARCH f USING PRIMARY KEY \(collection=\? AND name=\? AND value=\? AND seq<\?\)/, `one range of the fields' index: ${detail}`);
  t.notMatch(detail, /TEMP B-TREE/, 'no sort: the index gives the order');
});

t.test('personal tokens: a page of the live ones, a change writes its own record, the old single record moved once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-record-pages-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await openStateStore({ dir });
  const registry = new TokenRegistry(store);
  const made = Array.from({ length: 7 }, (_, i) => registry.create(`t${i}`, 'viewer', undefined).token);
  registry.revoke(made[2]!.id);
  registry.revoke(made[5]!.id);
  const names = (pages: { name: string }[][]) => pages.map((p) => p.map((v) => v.name));
  t.same(names(await allPages((cursor) => registry.list({ limit: 2, ...(cursor ? { cursor } : {}) }))), [['t4', 't6'], ['t1', 't3'], ['t0']], 'live ones only, newest page first');
  t.equal(store.recordsPage(TOKENS_COLLECTION, { limit: 100, where: { status: 'revoked' } }).entries.length, 2, 'the revoked ones are kept apart');
  t.equal(store.extension(TOKENS_RECORD), undefined, 'no single record rewritten whole');
  registry.close();
  await store.close();

  // An earlier version's single record: moved into the collection at the first start, in creation order.
  const legacyDir = await mkdtemp(join(tmpdir(), 'tw-record-pages-legacy-'));
  t.teardown(() => rm(legacyDir, { recursive: true, force: true }));
  const legacyStore = await openStateStore({ dir: legacyDir });
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  const stored = (i: number, revoked = false) => ({ id: `id${i}`, name: `old${i}`, role: 'viewer', hash: hashOf(`secret${i}`), created_at: at(i), expires_at: null, ...(revoked ? { revoked_at: at(10) } : {}) });
  legacyStore.setExtension(TOKENS_RECORD, { version: 1, tokens: [stored(1, true), stored(0), stored(2)] });
  const moved = new TokenRegistry(legacyStore);
  t.equal(legacyStore.extension(TOKENS_RECORD), undefined, 'the old record is gone');
  t.same(moved.list({ limit: 10 }).entries.map((v) => v.name), ['old0', 'old2'], 'live ones, oldest first');
  t.same(moved.authenticate(createHash('sha256').update('secret1').digest()), { status: 'refused', reason: 'API token revoked' }, 'a revoked one still says so');
  moved.close();
  await legacyStore.close();
  const again = new TokenRegistry(await openStateStore({ dir: legacyDir }));
  t.same(again.list({ limit: 10 }).entries.map((v) => v.name), ['old0', 'old2'], 'and after a restart, from the collection');
  again.close();
});

t.test('tokens without a store page from memory alike', async (t) => {
  const registry = new TokenRegistry(undefined);
  for (let i = 0; i < 5; i++) registry.create(`m${i}`, 'operator', undefined);
  const pages = await allPages((cursor) => registry.list({ limit: 2, ...(cursor ? { cursor } : {}) }));
  t.same(pages.map((p) => p.map((v) => v.name)), [['m3', 'm4'], ['m1', 'm2'], ['m0']]);
  t.throws(() => registry.list({ limit: 2, cursor: 'OTk5' }), { code: 'TW_ERR_STATE_CURSOR', statusCode: 400 });
});

t.test('approvals: pages filtered by state and container on the index; a decision writes its one entry', async (t) => {
  const store = await openStateStore();
  const ledger = new ApprovalLedger(store);
  const now = new Date(Date.UTC(2026, 0, 1));
  const ask = (i: number) =>
    ledger.request({ container: `c${i % 3}`, container_id: `id${i % 3}`, image: `r/c${i % 3}:1`, latest_digest: DIGEST(i) }, now).entry;
  const entries = Array.from({ length: 9 }, (_, i) => ask(i));
  // Each container asked three times: the first two superseded by the third.
  t.same(ledger.page({ limit: 10, state: 'pending' }).entries.map((e) => e.id), entries.slice(6).map((e) => e.id), 'the pending ones');
  t.same(ledger.page({ limit: 10, state: 'superseded', container: 'c1' }).entries.map((e) => e.id), [entries[1]!.id, entries[4]!.id], 'state and container');
  ledger.update(entries[7]!.id, 'rejected', { decided_at: now.toISOString(), decided_by: 'api' });
  t.same(ledger.page({ limit: 10, state: 'pending' }).entries.map((e) => e.container), ['c0', 'c2'], 'a decision moves it out of pending');
  t.equal(ledger.page({ limit: 10, state: 'rejected', container: 'c1' }).entries[0]?.state, 'rejected', 'and into rejected, as stored');
  const all = await allPages((cursor) => ledger.page({ limit: 4, ...(cursor ? { cursor } : {}) }));
  t.same(all.map((p) => p.length), [4, 4, 1], 'every entry, newest page first');
  t.same(all.flat().map((e) => e.id).sort(), entries.map((e) => e.id).sort());
  t.same(store.recordsPage(LEDGER_COLLECTION, { limit: 1 }).entries.length, 1, 'kept in the collection');
  t.equal(store.extension(LEDGER_EXTENSION), undefined, 'not in a single record rewritten whole');
  t.same(new ApprovalLedger(store).page({ limit: 100 }).entries.map((e) => e.state), ledger.all().map((e) => e.state), 'read back as kept');
});

t.test('approvals past the bound: the oldest decided go from the store too; an earlier single record is moved once', async (t) => {
  const store = await openStateStore();
  const ledger = new ApprovalLedger(store);
  const now = new Date(Date.UTC(2026, 0, 1));
  for (let i = 0; i < LEDGER_CAPACITY + 20; i++) {
    const { entry } = ledger.request({ container: `c${i}`, container_id: `id${i}`, image: 'r/x:1', latest_digest: DIGEST(i) }, now);
    ledger.update(entry.id, 'rejected', { decided_at: now.toISOString(), decided_by: 'api' });
  }
  ledger.request({ container: 'open', container_id: 'idopen', image: 'r/x:1', latest_digest: DIGEST(1) }, now);
  const kept = (await allPages((cursor) => ledger.page({ limit: 1000, ...(cursor ? { cursor } : {}) }))).flat();
  t.equal(kept.length, LEDGER_CAPACITY, 'the store holds what the ledger keeps');
  t.equal(kept[0]?.container, 'c21', 'the oldest decided ones went');
  t.equal(kept.at(-1)?.state, 'pending');

  const legacyStore = await openStateStore();
  const old = { id: 'abc', container: 'db', container_id: 'iddb', image: 'r/db:1', latest_digest: DIGEST(3), state: 'pending', requested_at: now.toISOString() };
  legacyStore.setExtension(LEDGER_EXTENSION, [old, { ...old, id: 'def', state: 'rejected' }]);
  const moved = new ApprovalLedger(legacyStore);
  t.equal(legacyStore.extension(LEDGER_EXTENSION), undefined, 'the old record is gone');
  t.same(moved.page({ limit: 10 }).entries.map((e) => e.id), ['abc', 'def'], 'its entries, in their order');
  t.same(new ApprovalLedger(legacyStore).page({ limit: 10, state: 'pending' }).entries.map((e) => e.id), ['abc']);
});
