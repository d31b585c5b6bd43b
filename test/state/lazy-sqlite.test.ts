// Without a data directory the store loads SQLite with its first write, not before (docs/performance.md#state):
// an idle service reads an empty store and never pays for it. Run in a child process, whose module list
// starts clean.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { REPO_ROOT } from '../helpers/service.js';

const STORE = pathToFileURL(join(REPO_ROOT, 'dist/plugins/state/store.js')).href;
const SCRIPT = `
import { openStateStore } from ${JSON.stringify(STORE)};
const loaded = () => process.moduleLoadList.some((m) => m === 'NativeModule sqlite');
const store = await openStateStore();
const reads = [store.lastCheck('x'), store.history().length, (await store.audit()).length, (await store.auditPage({ limit: 5 })).entries.length, store.extension('x')];
const before = loaded();
await store.appendAudit({ action: 'update', container: 'a', trigger: 't', run_id: 'r', outcome: 'updated' });
console.log(JSON.stringify({ reads, before, after: loaded(), audit: (await store.audit()).length }));
`;

t.test('an in-memory store loads node:sqlite with its first write', async (t) => {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
  t.equal(child.status, 0, child.stderr);
  t.same(JSON.parse(child.stdout), { reads: [null, 0, 0, 0, null], before: false, after: true, audit: 1 });
});
