// docs/policies.md through the real binary, engine and registry: a closed window defers (the container keeps
// running, next_window says when), an open one applies, a window in another zone with a step, a scheduled run
// at a window's opening applies; approvals asked by a run, kept across a SIGKILL, approved by the API with
// exactly the asked digest applied after the tag moved, a burst of approvals applied once, and reject then a
// newer push asks again.
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { pushImage, pullImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, pushNext, runningOn, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, type RunningService } from '../helpers/service.js';
import { serveScenario, tempDir, type Teardown } from '../helpers/fixtures.js';

const TOKEN = 'e2e-policies-token-0123456789';

interface Container {
  name: string;
  image: string;
  image_id: string;
  update_available?: boolean;
  next_window?: string;
  approval?: string;
}

interface Approval {
  id: string;
  container: string;
  state: string;
  latest_tag?: string;
  latest_digest: string;
  update_kind?: string;
  decided_by?: string;
  actor?: { kind: string; name: string };
}

async function serve(t: Teardown, s: Scenario, args: string[]): Promise<RunningService> {
  return serveScenario(t, { host: s.env.dockerHost, prefix: s.prefix }, ['--http-api-token', TOKEN, '--update-grace-period', '1s', '--stop-timeout', '5s', ...args]);
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });
const get = (service: RunningService, path: string) => call(`${service.url}${path}`, { token: TOKEN });

async function containers(service: RunningService): Promise<Map<string, Container>> {
  return new Map(((await get(service, '/v1/containers')).body as { containers: Container[] }).containers.map((c) => [c.name, c]));
}

async function approvals(service: RunningService): Promise<Approval[]> {
  return ((await get(service, '/v1/approvals')).body as { approvals: Approval[] }).approvals;
}

/** `read()` until `ok` says yes (test/helpers/env.ts waitFor); `what` names it in the failure. */
const until = <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> =>
  waitFor(async () => { const value = await read(); return ok(value) ? { value } : undefined; }, timeoutMs, 250).then((r) => r.value, (err: Error) => { throw new Error(`${what}: ${err.message}`); });

/** `M H * * *` of an instant, in UTC. */
const cronAt = (d: Date) => `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;

t.test('a closed window defers, an open one applies, a targeted update applies at once', async (t) => {
  const s = await scenario(t, 'e2e-window');
  if (!s) return;
  // Closed: opened two hours ago for one hour. Open: a window every 2 minutes for 10 minutes in India's zone (UTC+5:30).
  const closedSince = new Date(Date.now() - 2 * 3_600_000);
  const closed = await runningOn(s, 'closed');
  const open = await runningOn(s, 'open', { run: { labels: { 'com.centurylinklabs.watchtower.update-window': '*/2 * * * *;10m;Asia/Kolkata' } } });
  const person = await runningOn(s, 'person');
  for (const r of [closed, open, person]) await pushNext(s, r);
  const service = await serve(t, s, ['--http-api-endpoints', 'update,check,containers,metrics', '--update-window', `${cronAt(closedSince)};1h;UTC`]);

  const run = await post(service, '/v1/update');
  t.match(run.body, { summary: { updated: 1, skipped: 2 } }, 'only the container in its window is applied');
  t.not((await s.engine.getContainer(open.name).inspect()).Image, open.image.configDigest, 'open window: updated');
  const kept = await s.engine.getContainer(closed.name).inspect();
  t.equal(kept.Image, closed.image.configDigest, 'closed window: still the old image');
  t.ok(kept.State.Running, 'and still running');
  t.match((await get(service, '/v1/metrics')).text, /^tidewatch_updates_deferred 2$/m, 'two deferrals counted');

  await post(service, '/v1/check');
  const listed = await containers(service);
  const next = new Date(Math.floor(closedSince.getTime() / 60_000) * 60_000 + 24 * 3_600_000).toISOString();
  t.match(listed.get(closed.name), { update_available: true, next_window: next }, 'next_window: the same time tomorrow');
  t.notOk(listed.get(open.name)?.next_window, 'an up-to-date container has no next_window');

  const targeted = await post(service, `/v1/update?container=${person.name}`);
  t.match(targeted.body, { summary: { updated: 1 } }, 'a person\'s targeted update ignores the window');
  t.equal((await s.engine.getContainer(closed.name).inspect()).Image, closed.image.configDigest, 'the others still wait');
});

t.test('a scheduled run at the window\'s opening applies', async (t) => {
  const s = await scenario(t, 'e2e-window-schedule');
  if (!s) return;
  const app = await runningOn(s, 'app');
  await pushNext(s, app);
  // A window opening at the start of the next minute, for one minute; runs every 5 seconds.
  const opening = new Date(Math.ceil((Date.now() + 1_000) / 60_000) * 60_000);
  const service = await serve(t, s, ['--http-api-endpoints', 'containers', '--schedule', '*/5 * * * * *', '--update-window', `${cronAt(opening)};1m;UTC`]);
  // Mid-replacement the name briefly belongs to no container: a failed inspect is "not yet".
  const inspect = () => s.engine.getContainer(app.name).inspect().catch(() => undefined);
  const updatedAt = await until('the update', inspect, (info) => info !== undefined && info.Image !== app.image.configDigest && info.State.Running, 90_000).then(() => Date.now());
  t.ok(updatedAt >= opening.getTime(), `applied at or after the opening (${new Date(updatedAt).toISOString()} >= ${opening.toISOString()})`);
  t.ok(updatedAt < opening.getTime() + 60_000, 'inside the window');
  t.ok(service.logs.some((l) => typeof l['msg'] === 'string' && /update windows and approvals/.test(l['msg'] as string)));
});

t.test('approvals: asked by a run, kept across SIGKILL, exactly the asked digest applied, a burst applied once, reject then newer asks again', async (t) => {
  const s = await scenario(t, 'e2e-approvals');
  if (!s) return;
  const repo = `${s.prefix}/db`;
  const push = (tag: string, marker: string) => pushImage({ registry: s.env.registry, repo, tag, marker: `${repo} ${marker}`, cmd: QUICK_STOP_CMD });
  const v1 = await push('1.0.0', 'v1');
  await pullImage(s.engine, v1.ref);
  await runContainer(s.engine, { name: `${s.prefix}-db`, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
  const asked = await push('2.0.0', 'v2 first');
  const dir = await tempDir(t, 'policies');
  const args = ['--http-api-endpoints', 'update,containers,approvals,audit,metrics', '--data-dir', dir, '--approval', 'major'];
  const first = await serve(t, s, args);

  const run = await post(first, '/v1/update');
  t.match(run.body, { summary: { updated: 0, skipped: 1 } }, 'a major update waits');
  const [pending] = await approvals(first);
  t.match(pending, { container: `${s.prefix}-db`, state: 'pending', latest_tag: '2.0.0', latest_digest: asked.digest, update_kind: 'major' });
  t.match((await containers(first)).get(`${s.prefix}-db`), { approval: 'pending' });
  t.match((await post(first, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'still waiting, not asked again');
  t.equal((await approvals(first)).length, 1);
  t.equal((await get(first, '/v1/approvals')).status, 200);
  t.equal((await call(`${first.url}/v1/approvals`)).status, 401, 'the main token is required');
  t.equal((await post(first, '/v1/approvals/nope/approve')).status, 404);
  t.equal((await post(first, `/v1/approvals/${pending?.id}/defer?for=soon`)).status, 400);

  t.equal(await first.stop('SIGKILL'), null, 'killed');
  const second = await serve(t, s, args);
  t.match(await approvals(second), [{ id: pending?.id, state: 'pending' }], 'the pending approval survives a SIGKILL');
  t.match((await get(second, '/v1/metrics')).text, /^tidewatch_approvals_pending 1$/m, 'and is counted at once after the restart');

  // The tag moves after the question: approving applies what was asked about.
  const moved = await push('2.0.0', 'v2 moved');
  t.not(moved.digest, asked.digest);
  const burst = await Promise.all(Array.from({ length: 10 }, () => post(second, `/v1/approvals/${pending?.id}/approve`)));
  t.same(burst.map((r) => r.status).sort(), [202, ...Array(9).fill(409)], 'one 202, nine 409');
  // A name on every decision (docs/people.md#a-name-on-every-decision): the main token is the actor `main`.
  const main = { kind: 'token', name: 'main' };
  t.match(burst.find((r) => r.status === 202)?.body, { state: 'approved', decided_by: 'api', actor: main, run_id: String });
  await until('applied', () => approvals(second), (list) => list[0]?.state === 'applied');
  t.match((await approvals(second))[0], { state: 'applied', actor: main }, 'the approval keeps who decided');
  const info = await s.engine.getContainer(`${s.prefix}-db`).inspect();
  t.equal(info.Config.Image, `${s.env.registry}/${repo}:2.0.0`, 'runs the 2.0.0 tag');
  t.equal(info.Image, asked.configDigest, 'exactly the image asked about, not the moved tag');
  const audit = ((await get(second, `/v1/audit?container=${s.prefix}-db`)).body as { entries: { action: string; outcome: string; trigger: string; actor?: unknown }[] }).entries;
  t.same(audit.map((e) => `${e.action}:${e.outcome}`), ['approve:approved', 'update:updated'], 'applied once, decision audited');
  // The approval's run has no caller of its own: the update it applies carries the approver as its actor.
  t.match(audit.map((e) => [e.action, e.trigger, e.actor]), [['approve', 'api', main], ['update', 'approval', main]], 'the decision and the update it applied name the approver');

  const v3 = await push('3.0.0', 'v3');
  await post(second, '/v1/update');
  const three = (await approvals(second)).find((a) => a.latest_tag === '3.0.0');
  t.match(three, { state: 'pending', latest_digest: v3.digest });
  t.match((await post(second, `/v1/approvals/${three?.id}/reject`)).body, { state: 'rejected', actor: main });
  t.match((await post(second, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'rejected: not applied');
  t.equal((await approvals(second)).filter((a) => a.state === 'pending').length, 0, 'and not asked again');
  const v4 = await push('4.0.0', 'v4');
  await post(second, '/v1/update');
  t.match((await approvals(second)).at(-1), { latest_tag: '4.0.0', latest_digest: v4.digest, state: 'pending' }, 'a newer push asks again');
});
