// Threat model row "the paged lists' `limit`, `cursor` and filters" (docs/security.md#threat-model): any caller
// of /v1/audit, /v1/history, /v1/approvals or /v1/tokens picks them. A limit past 1000 (an answer built whole),
// a cursor crafted to read another collection or to reach SQL, and filter values with SQL in them must be
// refused or matched as plain values. Fails when the parser widens or the store splices a value into SQL.
import t from 'tap';
import { PAGE_MAX, parsePageQuery } from '../../contracts/index.js';
import { openStateStore } from '../../plugins/state/store.js';

const b64 = (text: string) => Buffer.from(text, 'latin1').toString('base64url');

t.test('limit: 0 to 1000 in plain digits, nothing else', async (t) => {
  for (const limit of ['1001', '99999999999', '-1', '1e3', '0x10', ' 5', '5 ', '', '1.5', '١٠']) {
    t.match(parsePageQuery(limit, undefined), { parameter: 'limit' }, `limit ${JSON.stringify(limit)} refused`);
  }
  t.same(parsePageQuery(String(PAGE_MAX), undefined), { limit: PAGE_MAX });
  t.same(parsePageQuery('0', undefined), { limit: 0 });
  t.match(parsePageQuery(undefined, ''), { parameter: 'cursor' }, 'an empty cursor refused');
});

t.test('a crafted cursor is refused before it reaches a query; filters are values, never SQL', async (t) => {
  const store = await openStateStore();
  store.setRecord('people.tokens', 'a', { secret: 'tokens' }, { status: 'live' });
  store.setRecord('other', 'b', { secret: 'other' }, { status: 'live' });
  await store.appendAudit({ action: 'update', container: 'web', trigger: 'api', run_id: 'r', outcome: 'updated' });
  const crafted = [b64('1 OR 1=1'), b64("1'; DROP TABLE records; --"), b64('1.2.3'), b64('1e99'), b64('99999999999999999999'), b64('0x10'), 'A'.repeat(65), '../../x', b64(''), b64('1.')];
  for (const cursor of crafted) {
    t.throws(() => store.recordsPage('people.tokens', { limit: 10, cursor }), { code: 'TW_ERR_STATE_CURSOR', statusCode: 400 }, `records: ${cursor}`);
    await t.rejects(store.auditPage({ limit: 10, cursor }), { code: 'TW_ERR_STATE_CURSOR' }, `audit: ${cursor}`);
  }
  // A cursor of another collection's key reads this collection only.
  const page = store.recordsPage('people.tokens', { limit: 10, cursor: b64('999') });
  t.same(page.entries.map((e) => e.value), [{ secret: 'tokens' }], 'only this collection, whatever the key');
  for (const value of ["live' OR '1'='1", 'live" OR 1=1 --', '%', '_']) {
    t.same(store.recordsPage('people.tokens', { limit: 10, where: { status: value } }).entries, [], `where ${JSON.stringify(value)} matches nothing`);
  }
  t.same((await store.auditPage({ limit: 10, container: "web' OR '1'='1" })).entries, [], 'an audit filter is a value');
  t.equal(store.recordsPage('people.tokens', { limit: 10 }).entries.length, 1, 'every table still there');
});
