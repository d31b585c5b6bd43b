// Checks do not leak (docs/performance.md#memory): thousands of checks against the real registry, each
// with its own request signal as the HTTP API gives one, and the heap after a full collection stays where
// it was. Before the fix every check left its manifest HEAD alive (the request, its answer, the run's
// signal, about 7 KB), held by an abort listener on a signal Node keeps alive.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { requireEnv } from '../../helpers/env.js';
import { pushImage, testPrefix } from '../../helpers/images.js';
import { createTidewatch, type TidewatchPlugin } from '../../../core/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { emptyConfigDir, stubRuntime, target } from './harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterFullCollection(): number {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

const WARM_UP = 600; // past the run history's 500 entries, which fill once and then stay
const CHECKS = 2500;
const BOUND = 1024 * 1024;

t.test(`${CHECKS} checks against the real registry grow the heap by less than 1 MB`, { timeout: 240_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const image = await pushImage({ registry: env.registry, repo: `${testPrefix('check-leak')}/app`, marker: 'leak' });
  // Not harness(): it records every event, which would grow the heap by itself.
  const targets = [target('app', image.ref, [image.digestRef])];
  const tw = await createTidewatch({
    plugins: [stubRuntime(() => targets), { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } }] as TidewatchPlugin<object>[],
  });
  t.teardown(() => tw.close());
  let requests = 0;
  tw.hooks.event.tap('leak-test', (e) => {
    if (e.type === 'registry_request') requests++;
  });
  const check = async () => {
    const report = await tw.check({ signal: new AbortController().signal });
    const staleness = report.results[0]?.staleness;
    if (!staleness || staleness.error || staleness.stale) throw new Error(`unexpected check: ${JSON.stringify(staleness)}`);
  };
  for (let i = 0; i < WARM_UP; i++) await check();
  const before = heapAfterFullCollection();
  requests = 0;
  const started = performance.now();
  for (let i = 0; i < CHECKS; i++) await check();
  const growth = heapAfterFullCollection() - before;
  t.comment(`${CHECKS} checks in ${((performance.now() - started) / 1000).toFixed(1)} s; heap growth ${(growth / 1024).toFixed(1)} KB`);
  t.ok(requests >= CHECKS, `every check asked the registry (${requests} requests)`);
  t.ok(growth < BOUND, `heap after a full collection grew by ${(growth / 1024).toFixed(1)} KB (bound ${BOUND / 1024} KB)`);
});
