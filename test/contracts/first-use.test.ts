// contracts/shared/first-use.ts and node-fs.ts (docs/plugins.md#loading-code-at-first-use, docs/performance.md#memory):
// a module loaded once at its first use, a failed load tried again, and Node's file calls answering as
// node:fs/promises answers without loading it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile as readFileP, rm as rmP } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { firstUse } from '../../contracts/shared/first-use.js';
import { mkdir, readFile, rm, stat, writeFile } from '../../contracts/shared/node-fs.js';
import { REPO_ROOT } from '../helpers/service.js';

t.test('firstUse loads once, hands every caller the same module, and tries a failed load again', async (t) => {
  let loads = 0;
  const use = firstUse(async () => ({ n: ++loads }));
  t.equal(use.loaded(), undefined, 'nothing before the first call');
  const [a, b] = await Promise.all([use(), use()]);
  t.equal(a, b, 'concurrent callers share one load');
  t.equal(loads, 1);
  t.equal(use.loaded(), a, 'loaded() is the module once in');

  let attempts = 0;
  const flaky = firstUse(async () => {
    if (++attempts === 1) throw new Error('first import failed');
    return 'ok';
  });
  await t.rejects(flaky(), /first import failed/, 'the caller sees the import\'s own error');
  t.equal(flaky.loaded(), undefined);
  t.equal(await flaky(), 'ok', 'the next use tries again');
  t.equal(attempts, 2);
});

t.test('node-fs answers and fails as node:fs/promises does', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-node-fs-'));
  t.teardown(() => rmP(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'a', 'b'), { recursive: true });
  await writeFile(join(dir, 'a', 'b', 'f'), 'text');
  t.equal(await readFile(join(dir, 'a', 'b', 'f'), 'utf8'), 'text');
  t.equal(await readFileP(join(dir, 'a', 'b', 'f'), 'utf8'), 'text');
  t.ok((await stat(join(dir, 'a'))).isDirectory());
  const missing = join(dir, 'missing');
  const ours = await readFile(missing).catch((err: NodeJS.ErrnoException) => err);
  const theirs = await readFileP(missing).catch((err: NodeJS.ErrnoException) => err);
  t.match(ours, { code: 'ENOENT', path: missing, syscall: 'open' });
  t.equal((ours as Error).message, (theirs as Error).message, 'the same message');
  await rm(join(dir, 'a'), { recursive: true });
  await t.rejects(stat(join(dir, 'a')), { code: 'ENOENT' });
});

t.test('importing node-fs and calling it loads no node:fs/promises', async (t) => {
  // Built output, in a child without the test runner's preloads (they load node:fs/promises themselves).
  const script = `
    const { mkdir, readFile } = await import('./dist/contracts/shared/node-fs.js');
    await mkdir(process.argv[1] + '/x', { recursive: true });
    await readFile(process.argv[1] + '/none').catch(() => undefined);
    console.log(JSON.stringify(process.moduleLoadList.filter((m) => /fs\\/promises|readline/.test(m))));`;
  const dir = await mkdtemp(join(tmpdir(), 'tw-node-fs-'));
  t.teardown(() => rmP(dir, { recursive: true, force: true }));
  const { stdout } = await promisify(execFile)('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, '--input-type=module', '-e', script, dir], { cwd: REPO_ROOT });
  t.same(JSON.parse(stdout.trim()), [], 'neither node:fs/promises nor readline');
});
