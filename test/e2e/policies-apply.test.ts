// docs/policies.md#approvals through the real binary, engine and registry, with a window that opens during the
// test: an approval given while the window is closed is applied by the window's first run by its digest, even
// though the tag moved meanwhile, and the newer candidate gets its own pending entry; approving a candidate
// deleted from the registry (its manifest, through the registry API) is a 409; an approved candidate deleted
// before its window is a pull that fails before anything is replaced: the audit says `failed`, not
// `rolled_back`, the container keeps running, and the entry is superseded with the error instead of staying
// `approved` for ever.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { deleteManifest, pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-policies-apply-token-0123456789';

interface Approval {
  id: string;
  container: string;
  state: string;
  latest_tag?: string;
  latest_digest: string;
  reason?: string;
}

const cronAt = (d: Date) => `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;

t.test('approved while the window is closed: the window\'s first run applies that digest; a deleted candidate is a 409 or a plain failure', async (t) => {
  const s = await scenario(t, 'e2e-approve-window');
  if (!s) return;
  const setup = async (app: string) => {
    const repo = `${s.prefix}/${app}`;
    const push = (tag: string, marker: string) => pushImage({ registry: s.env.registry, repo, tag, marker: `${repo} ${marker}`, cmd: QUICK_STOP_CMD });
    const v1 = await push('1.0.0', 'v1');
    await pullImage(s.engine, v1.ref);
    const name = `${s.prefix}-${app}`;
    await runContainer(s.engine, { name, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
    return { repo, name, v1, push, asked: await push('2.0.0', 'v2 asked') };
  };
  const moving = await setup('moving');
  const deletedEarly = await setup('deleted-early');
  const deletedLate = await setup('deleted-late');

  // The window opens at a minute's start at least 60 s away (asking under load takes a while), for two minutes;
  // runs every 5 seconds.
  const opening = new Date(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000);
  const dir = await mkdtemp(join(tmpdir(), 'tw-approve-window-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const service = await startService([
    '--host', s.env.dockerHost, '--http-api-token', TOKEN, '--update-grace-period', '1s', '--stop-timeout', '5s', '--data-dir', dir,
    '--http-api-endpoints', 'containers,approvals,audit', '--approval', 'all', '--schedule', '*/5 * * * * *',
    '--update-window', `${cronAt(opening)};2m;UTC`, `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  const get = (path: string) => call(`${service.url}${path}`, { token: TOKEN });
  const post = (path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });
  const approvals = async () => ((await get('/v1/approvals')).body as { approvals: Approval[] }).approvals;
  const entryOf = async (name: string) => (await approvals()).filter((a) => a.container === name);

  const asked = await waitFor(async () => {
    const list = (await approvals()).filter((a) => a.state === 'pending');
    return list.length === 3 ? list : undefined;
  }, 60_000, 250);
  t.ok(Date.now() < opening.getTime(), 'asked before the window opens');
  const idOf = (name: string) => asked.find((a) => a.container === name)?.id as string;

  // Approved while closed: 202, no run yet.
  const approved = await post(`/v1/approvals/${idOf(moving.name)}/approve`);
  t.equal(approved.status, 202);
  t.match(approved.body, { state: 'approved' });
  t.notOk((approved.body as { run_id?: string }).run_id, 'no run while the window is closed');
  t.equal((await post(`/v1/approvals/${idOf(deletedLate.name)}/approve`)).status, 202);

  // The candidate deleted from the registry before the approval: 409, nothing applied.
  await deleteManifest(s.env.registry, deletedEarly.repo, deletedEarly.asked.digest);
  const refused = await post(`/v1/approvals/${idOf(deletedEarly.name)}/approve?now=true`);
  t.equal(refused.status, 409, 'a candidate gone from the registry cannot be approved');
  t.match(refused.body, { code: 'TW_ERR_APPROVAL_CONFLICT', error: /is gone from the registry/ });
  t.match(await entryOf(deletedEarly.name), [{ state: 'superseded', reason: /gone from the registry/ }]);

  // After the approval: the tag moves, and the approved candidate of the other container is deleted.
  const moved = await moving.push('2.0.0', 'v2 moved');
  t.not(moved.digest, moving.asked.digest);
  await deleteManifest(s.env.registry, deletedLate.repo, deletedLate.asked.digest);

  // The window opens: its first run applies the approved digest, not what the tag names now.
  const inspect = () => s.engine.getContainer(moving.name).inspect().catch(() => undefined);
  const info = await waitFor(async () => {
    const i = await inspect();
    return i && i.Image !== moving.v1.configDigest && i.State.Running ? i : undefined;
  }, 180_000, 500);
  t.ok(Date.now() >= opening.getTime(), 'applied once the window is open');
  t.equal(info.Image, moving.asked.configDigest, 'exactly the approved image, not the moved tag');
  t.equal(info.Config.Image, `${s.env.registry}/${moving.repo}:2.0.0`);
  await waitFor(async () => ((await entryOf(moving.name)).some((a) => a.id === idOf(moving.name) && a.state === 'applied') ? true : undefined), 30_000, 250);

  // The newer candidate (the moved tag) asks on its own.
  const newer = await waitFor(async () => (await entryOf(moving.name)).find((a) => a.state === 'pending' && a.latest_digest === moved.digest), 60_000, 250);
  t.ok(newer, 'the moved tag is a new pending question');
  t.equal((await inspect())?.Image, moving.asked.configDigest, 'and waits for a person');

  // The approved candidate deleted before its window: a failure before any replacement.
  const late = await waitFor(async () => (await entryOf(deletedLate.name)).find((a) => a.id === idOf(deletedLate.name) && a.state !== 'approved'), 60_000, 250);
  t.match(late, { state: 'superseded', reason: /the approved update failed/ }, 'not left approved');
  const audit = ((await get(`/v1/audit?container=${deletedLate.name}`)).body as { entries: { action: string; outcome: string }[] }).entries;
  t.match(audit.filter((e) => e.action === 'update'), [{ outcome: 'failed' }], 'audited as failed, not rolled_back');
  const still = await s.engine.getContainer(deletedLate.name).inspect();
  t.equal(still.Image, deletedLate.v1.configDigest, 'nothing was replaced');
  t.ok(still.State.Running);
});
