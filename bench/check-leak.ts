// Benchmark (not a test): heap growth after a full collection over N checks (default 5,000) of one
// container against the real registry, each check with its own request signal as the HTTP API gives one.
// test/plugins/registry/check-leak.test.ts holds the bound; this prints the figure (docs/performance.md).
//
//   bash scripts/test-env.sh up
//   node --expose-gc --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/check-leak.ts [N]
import { createTidewatch, type TidewatchPlugin } from '../core/index.js';
import { registryPlugin } from '../plugins/registry/index.js';
import { testEnv } from '../test/helpers/env.js';
import { pushImage } from '../test/helpers/images.js';
import { emptyConfigDir, stubRuntime, target } from '../test/plugins/registry/harness.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = () => {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
};
const env = await testEnv();
if (!env) throw new Error('no test environment: bash scripts/test-env.sh up');
const image = await pushImage({ registry: env.registry, repo: 'tw-bench/check-leak', marker: 'leak-1' });
const targets = [target('leak-0', image.ref, [image.digestRef])];
const tw = await createTidewatch({
  plugins: [stubRuntime(() => targets), { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } }] as TidewatchPlugin<object>[],
});
const check = () => tw.check({ signal: new AbortController().signal });
for (let i = 0; i < 600; i++) await check(); // the run history (500 entries) fills first
const before = heap();
const n = Number(process.argv[2] ?? 5000);
const started = performance.now();
for (let i = 0; i < n; i++) await check();
const growth = heap() - before;
console.log(`${n} checks in ${((performance.now() - started) / 1000).toFixed(1)} s: heap growth after full GC ${(growth / 1024).toFixed(1)} KB (${(growth / n).toFixed(0)} B/check; bound 1024 KB)`);
await tw.close();
