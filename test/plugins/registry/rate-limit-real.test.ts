// Rate limits against the real registry, through a proxy that injects 429s and counts requests.
import t from 'tap';
import { requireEnv } from '../../helpers/env.js';
import { pushImage, testPrefix, type PushedImage } from '../../helpers/images.js';
import { harness, target } from './harness.js';
import { RegistryProxy } from './registry-proxy.js';

const prefix = testPrefix('registry-429');

async function images(registry: string, n: number): Promise<PushedImage[]> {
  const out: PushedImage[] = [];
  for (let i = 0; i < n; i++) out.push(await pushImage({ registry, repo: `${prefix}/img${i}`, marker: `m${i}` }));
  return out;
}

t.test('a 429 storm ends in per-container errors, one probe per backoff step, other registries unaffected', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const pushed = await images(env.registry, 5);
  const proxy = await new RegistryProxy({
    upstream: env.registry,
    inject: (req) =>
      req.path.includes('/manifests/')
        ? { status: 429, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: '{"errors":[{"code":"TOOMANYREQUESTS"}]}' }
        : undefined,
  }).start();
  t.teardown(() => proxy.close());
  const via = (ref: string) => ref.replace(env.registry, proxy.host);
  // 15 containers over 5 images behind the proxy, and one on the registry directly.
  const targets = Array.from({ length: 15 }, (_, i) => {
    const img = pushed[i % 5] as PushedImage;
    return target(`limited-${i}`, via(img.ref), [via(img.digestRef)]);
  });
  const direct = pushed[0] as PushedImage;
  targets.push(target('direct', direct.ref, [direct.digestRef]));
  const maxWaitMs = 2500;
  const h = await harness(targets, { rateLimitMaxWaitMs: maxWaitMs, rateLimitRetries: 4 });
  t.teardown(() => h.tw.close());

  const started = Date.now();
  const report = await h.check();
  const elapsed = Date.now() - started;
  const limited = report.results.filter((r) => r.target.name.startsWith('limited-'));
  t.equal(limited.length, 15);
  for (const r of limited) {
    t.equal(r.staleness.stale, false, `${r.target.name} is not claimed up to date...`);
    t.match(r.staleness.error, /is rate limiting requests/, `...it carries the rate-limit error`);
  }
  t.same(h.byName(report, 'direct').staleness.error, undefined, 'the direct registry was not paused');
  // Bound: the first burst (one per distinct image, 5) plus one probe per pause. Pauses last at least
  // Retry-After (1 s) and a request gives up when the pause would outlast its 2.5 s budget, so at most
  // ceil(2.5 / 1) + 1 probes follow.
  const manifests = proxy.manifestRequests();
  t.ok(manifests >= 5, `at least the first burst (${manifests})`);
  t.ok(manifests <= 5 + Math.ceil(maxWaitMs / 1000) + 1, `no more than the backoff allows (${manifests})`);
  t.ok(elapsed < maxWaitMs + 2000, `gave up within the budget (${elapsed} ms)`);
});

t.test('a short storm is waited out: every container checked, few extra requests', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const pushed = await images(env.registry, 4);
  let limitedAnswers = 0;
  const proxy = await new RegistryProxy({
    upstream: env.registry,
    inject: (req) => {
      if (!req.path.includes('/manifests/') || limitedAnswers >= 6) return undefined;
      limitedAnswers++;
      return { status: 429, headers: { 'retry-after': new Date(Date.now() + 1000).toUTCString() } };
    },
  }).start();
  t.teardown(() => proxy.close());
  const via = (ref: string) => ref.replace(env.registry, proxy.host);
  const targets = Array.from({ length: 12 }, (_, i) => {
    const img = pushed[i % 4] as PushedImage;
    return target(`c${i}`, via(img.ref), [via(img.digestRef)]);
  });
  const h = await harness(targets, { rateLimitMaxWaitMs: 10_000 });
  t.teardown(() => h.tw.close());
  const report = await h.check();
  t.notOk(report.results.some((r) => r.staleness.error), 'all checked after the pause');
  t.ok(report.results.every((r) => r.staleness.stale === false));
  t.ok(proxy.manifestRequests() <= 4 + 6 + 1, `bounded requests (${proxy.manifestRequests()})`);
});
