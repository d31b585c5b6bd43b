// The suite runs on the Node that package.json's engines names (docs/node.md): this very process does
// (so CI's `npm test` ran on the pinned Node 24), scripts/pinned-node.sh gives that pinned Node from the
// npm registry, and scripts/engines-check.mjs, which decides when `npm test` switches to it, accepts it
// and refuses a Node outside the range.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../helpers/service.js';

const run = promisify(execFile);
const engines = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const pinned = /^NODE_24=(\S+)$/m.exec(readFileSync(join(REPO_ROOT, 'scripts/pinned-node.sh'), 'utf8'))?.[1];

/** Runs scripts/engines-check.mjs with `node`; resolves to its exit code and stderr. */
async function enginesCheck(node: string): Promise<{ code: number; stderr: string }> {
  try {
    await run(node, [join(REPO_ROOT, 'scripts/engines-check.mjs')]);
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stderr: e.stderr ?? '' };
  }
}

t.test('this test process runs on a Node inside engines.node', async (t) => {
  t.equal(engines, '>=24 <25', 'the range the suite is verified on');
  t.equal(process.versions.node.split('.')[0], '24', `node ${process.version}`);
  t.equal((await enginesCheck(process.execPath)).code, 0);
});

t.test('scripts/pinned-node.sh gives the pinned Node 24 from the npm registry', { timeout: 300_000 }, async (t) => {
  t.match(pinned, /^24\.\d+\.\d+$/, 'pinned by exact version');
  const { stdout } = await run('bash', [join(REPO_ROOT, 'scripts/pinned-node.sh'), '24'], { cwd: REPO_ROOT, timeout: 280_000 });
  const node = join(stdout.trim(), 'node');
  t.equal((await run(node, ['--version'])).stdout.trim(), `v${pinned}`);
  t.equal((await enginesCheck(node)).code, 0, 'engines-check accepts it');
});

t.test('engines-check refuses a Node outside the range', async (t) => {
  // The same check, fed another version through a one-line preload that overrides process.versions.
  const script = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });`;
  const outside = await run(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(script)}`, join(REPO_ROOT, 'scripts/engines-check.mjs')]).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code?: number; stderr?: string }) => ({ code: err.code ?? -1, stderr: err.stderr ?? '' }),
  );
  t.equal(outside.code, 1);
  t.match(outside.stderr, /outside engines\.node/);
});
