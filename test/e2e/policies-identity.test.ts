// docs/policies.md#whose-approval-it-is through the real binary, engine and registry: an approval belongs to
// the container asked about (its runtime id). Another container that takes the name (here the same image,
// pinned with tag.policy=pin) is never upgraded by the old entry: the next run supersedes it with the reason
// and approving it is a 409 saying so. The entry follows the container through Tidewatch's own replacement
// (1.4.2 → 1.5.0 applied while 2.0.0 waits: the entry now reads 1.5.0 → 2.0.0, and approving it upgrades that
// container). An entry whose container left the watched set (recreated with enable=false, a filter) or was
// removed is superseded at the next run, and tidewatch_approvals_pending counts only the pending ones; approving
// such an entry is a 409 that says why (no longer watched, gone), not that the running container "is gone".
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-policies-identity-token-0123456789';

interface Approval {
  id: string;
  container: string;
  container_id?: string;
  state: string;
  current_tag?: string;
  latest_tag?: string;
  latest_digest: string;
  reason?: string;
}

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-identity-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(t: { teardown(fn: () => unknown): void }, s: Scenario, args: string[], dir?: string): Promise<RunningService> {
  dir ??= await dataDir(t);
  const service = await startService([
    '--host', s.env.dockerHost, '--http-api-token', TOKEN, '--update-grace-period', '1s', '--stop-timeout', '5s', '--data-dir', dir,
    '--http-api-endpoints', 'update,check,containers,approvals,audit,metrics', '--approval', 'major', ...args, `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });
const get = (service: RunningService, path: string) => call(`${service.url}${path}`, { token: TOKEN });
const approvals = async (service: RunningService): Promise<Approval[]> => ((await get(service, '/v1/approvals')).body as { approvals: Approval[] }).approvals;
const byContainer = async (service: RunningService, name: string) => (await approvals(service)).filter((a) => a.container === name);
const pendingGauge = async (service: RunningService) => Number(/^tidewatch_approvals_pending (\d+)$/m.exec((await get(service, '/v1/metrics')).text)?.[1]);

function pusher(s: Scenario, app: string) {
  const repo = `${s.prefix}/${app}`;
  return (tag: string) => pushImage({ registry: s.env.registry, repo, tag, marker: `${repo} ${tag}`, cmd: QUICK_STOP_CMD });
}

t.test('another container under the name is never upgraded by the old entry: superseded with the reason, approve is 409', async (t) => {
  const s = await scenario(t, 'e2e-identity-name');
  if (!s) return;
  const push = pusher(s, 'db');
  const v1 = await push('1.0.0');
  await pullImage(s.engine, v1.ref);
  const name = `${s.prefix}-db`;
  const asked = await runContainer(s.engine, { name, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
  await push('2.0.0');
  const service = await serve(t, s, []);

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'the major waits for a person');
  const [entry] = await byContainer(service, name);
  t.match(entry, { state: 'pending', latest_tag: '2.0.0', container_id: asked.id }, 'the entry names the container asked about');
  t.equal(await pendingGauge(service), 1);

  // Someone removes it and runs another container under the name: the same image, pinned.
  await s.engine.getContainer(name).remove({ force: true });
  const other = await runContainer(s.engine, { name, image: v1.ref, labels: { 'tidewatch.tag.policy': 'pin' } });
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0 } }, 'the next run applies nothing');
  const [after] = await byContainer(service, name);
  t.match(after, { id: entry?.id, state: 'superseded', reason: /replaced by another container that Tidewatch did not create/ });
  t.equal(await pendingGauge(service), 0, 'no longer counted as pending');

  const approve = await post(service, `/v1/approvals/${entry?.id}/approve`);
  t.equal(approve.status, 409);
  t.match(approve.body, { code: 'TW_ERR_APPROVAL_CONFLICT', error: /superseded: container .* was replaced by another container/ });
  await new Promise((r) => setTimeout(r, 2_000));
  const now = await s.engine.getContainer(name).inspect();
  t.equal(now.Id, other.id, 'the other container is untouched');
  t.equal(now.Image, v1.configDigest, 'and still runs its own image');
});

t.test('approving before the next run: the container under the name is checked at once', async (t) => {
  const s = await scenario(t, 'e2e-identity-approve');
  if (!s) return;
  const push = pusher(s, 'db');
  const v1 = await push('1.0.0');
  await pullImage(s.engine, v1.ref);
  const name = `${s.prefix}-db`;
  await runContainer(s.engine, { name, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
  await push('2.0.0');
  const service = await serve(t, s, []);
  await post(service, '/v1/update');
  const [entry] = await byContainer(service, name);
  await s.engine.getContainer(name).remove({ force: true });
  const other = await runContainer(s.engine, { name, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
  const approve = await post(service, `/v1/approvals/${entry?.id}/approve?now=true`);
  t.equal(approve.status, 409, 'no run since the name changed hands: approve still refuses');
  t.match(approve.body, { error: /replaced by another container/ });
  await new Promise((r) => setTimeout(r, 2_000));
  t.equal((await s.engine.getContainer(name).inspect()).Id, other.id, 'the other container was not replaced');
});

t.test('the entry follows Tidewatch\'s own replacement: 1.4.2 → 1.5.0 applied, 2.0.0 still asked, now from 1.5.0', async (t) => {
  const s = await scenario(t, 'e2e-identity-follow');
  if (!s) return;
  const push = pusher(s, 'app');
  const v142 = await push('1.4.2');
  await pullImage(s.engine, v142.ref);
  const name = `${s.prefix}-app`;
  const first = await runContainer(s.engine, { name, image: v142.ref, labels: { 'tidewatch.tag.policy': 'major' } });
  const v150 = await push('1.5.0');
  const v200 = await push('2.0.0');
  const service = await serve(t, s, []);

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } }, 'the minor applies on its own');
  const replaced = await s.engine.getContainer(name).inspect();
  t.not(replaced.Id, first.id, 'Tidewatch replaced the container');
  t.equal(replaced.Image, v150.configDigest);
  const [entry] = await byContainer(service, name);
  t.match(entry, { state: 'pending', latest_tag: '2.0.0', latest_digest: v200.digest, container_id: replaced.Id, current_tag: '1.5.0' },
    'the open entry followed the container and reads from the running version');
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0 } });
  t.match(await byContainer(service, name), [{ id: entry?.id, state: 'pending' }], 'the next run keeps it pending');

  t.equal((await post(service, `/v1/approvals/${entry?.id}/approve?now=true`)).status, 202);
  await waitFor(async () => ((await byContainer(service, name))[0]?.state === 'applied' ? true : undefined), 60_000, 250);
  t.equal((await s.engine.getContainer(name).inspect()).Image, v200.configDigest, 'approving upgraded that container');
});

t.test('left the watched set or removed: superseded at the next run with the reason; the gauge counts pending ones only', async (t) => {
  const s = await scenario(t, 'e2e-identity-stale');
  if (!s) return;
  const names = ['unwatched', 'filtered', 'forked', 'removed', 'kept'].map((n) => `${s.prefix}-${n}`);
  for (const name of names) {
    const push = pusher(s, name.slice(s.prefix.length + 1));
    const v1 = await push('1.0.0');
    await pullImage(s.engine, v1.ref);
    await runContainer(s.engine, { name, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
    await push('2.0.0');
  }
  const [unwatched, filtered, forked, removed, kept] = names as [string, string, string, string, string];
  const dir = await dataDir(t);
  let service = await serve(t, s, [], dir);
  await post(service, '/v1/update');
  t.equal(await pendingGauge(service), 5, 'five asked');
  const before = await approvals(service);

  // Recreated with enable=false; removed; and (after a restart with the same data directory) left out by a filter.
  const info = await s.engine.getContainer(unwatched).inspect();
  await s.engine.getContainer(unwatched).remove({ force: true });
  await runContainer(s.engine, { name: unwatched, image: info.Config.Image, labels: { 'tidewatch.tag.policy': 'major', 'tidewatch.enable': 'false' } });
  await s.engine.getContainer(removed).remove({ force: true });
  t.match((await post(service, '/v1/check')).body, {}, 'the next run (a check)');
  const reasons = new Map((await approvals(service)).map((a) => [a.container, a]));
  t.match(reasons.get(unwatched), { state: 'superseded', reason: /recreated by someone else and is no longer watched/ });
  t.match(reasons.get(removed), { state: 'superseded', reason: /is gone/ });
  t.match(reasons.get(kept), { state: 'pending' });
  t.equal(await pendingGauge(service), 3);
  const approve = await post(service, `/v1/approvals/${before.find((a) => a.container === removed)?.id}/approve`);
  t.equal(approve.status, 409);
  t.match(approve.body, { error: /superseded: container .* is gone/ }, 'approve says why, not "the running container is gone"');
  const approveUnwatched = await post(service, `/v1/approvals/${before.find((a) => a.container === unwatched)?.id}/approve`);
  t.equal(approveUnwatched.status, 409);
  t.match(approveUnwatched.body, { error: /superseded: container .* was recreated by someone else and is no longer watched/ }, 'no longer watched, not "gone"');

  // Restarted on the same data directory with filters that leave one container out each: Watchtower's
  // --disable-containers, and one of the fork's image filters (--skip-image-names, anchored on the image with its tag).
  await service.stop('SIGTERM');
  service = await serve(t, s, ['--disable-containers', filtered, '--skip-image-names', '.*/forked:1\\.0\\.0'], dir);
  await post(service, '/v1/update');
  const restarted = new Map((await approvals(service)).map((a) => [a.container, a]));
  t.match(restarted.get(filtered), { state: 'superseded', reason: /is no longer watched \(its labels or the filters leave it out\)/ });
  t.match(restarted.get(forked), { state: 'superseded', reason: /is no longer watched \(its labels or the filters leave it out\)/ }, 'a fork filter alike');
  const approveForked = await post(service, `/v1/approvals/${restarted.get(forked)?.id}/approve`);
  t.equal(approveForked.status, 409);
  t.match(approveForked.body, { error: /superseded: container .* is no longer watched/ }, 'approve says it is no longer watched');
  t.match(restarted.get(kept), { state: 'pending' });
  t.equal(await pendingGauge(service), 1, 'only the one still pending');
});
