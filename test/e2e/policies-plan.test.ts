// An approval applies through the one exact plan (docs/plans.md, docs/policies.md#approvals; decisions §15, §22)
// through the real binary, engine and registry: a digest update (same tag) waits for a person under
// `--approval all`; a newer digest is pushed to the same tag after the question was asked; approving applies
// exactly the asked digest, through a plan decided and applied in the approval's run (its run id on the plan and
// on the update's audit entry), never the newer push, which then asks on its own.
import t from 'tap';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js';
import { call, type RunningService } from '../helpers/service.js';
import { serveScenario, tempDir } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/env.js';

const TOKEN = 'e2e-policies-plan-token-0123456789';

interface Approval {
  id: string;
  state: string;
  latest_digest: string;
  update_kind?: string;
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });
const get = (service: RunningService, path: string) => call(`${service.url}${path}`, { token: TOKEN });
const approvals = async (service: RunningService) => ((await get(service, '/v1/approvals')).body as { approvals: Approval[] }).approvals;

t.test('an approval applies the planned candidate, not a digest pushed to the tag after it was asked about', async (t) => {
  const s = await scenario(t, 'e2e-approval-plan');
  if (!s) return;
  const repo = `${s.prefix}/cache`;
  const name = `${s.prefix}-cache`;
  const push = (marker: string) => pushImage({ registry: s.env.registry, repo, tag: 'latest', marker: `${repo} ${marker}`, cmd: QUICK_STOP_CMD });
  const v1 = await push('v1');
  await pullImage(s.engine, v1.ref);
  await runContainer(s.engine, { name, image: v1.ref });
  const asked = await push('v2 asked about');
  const dir = await tempDir(t, 'policies-plan');
  const service = await serveScenario(t, { host: s.env.dockerHost, prefix: s.prefix }, [
    '--http-api-token', TOKEN, '--update-grace-period', '1s', '--stop-timeout', '5s',
    '--http-api-endpoints', 'update,containers,approvals,audit', '--data-dir', dir, '--approval', 'all',
  ]);

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'a digest update waits under --approval all');
  const [pending] = await approvals(service);
  t.match(pending, { state: 'pending', latest_digest: asked.digest });

  // The tag moves on after the question, before the answer.
  const newer = await push('v3 pushed after the question');
  t.not(newer.digest, asked.digest);

  const approved = await post(service, `/v1/approvals/${pending?.id}/approve?now=true`);
  t.equal(approved.status, 202);
  const runId = (approved.body as { run_id?: string }).run_id;
  t.type(runId, 'string', 'the approval names its run');
  await waitFor(async () => ((await approvals(service)).find((a) => a.id === pending?.id)?.state === 'applied' ? true : undefined), 60_000, 250);

  const info = await s.engine.getContainer(name).inspect();
  t.equal(info.Image, asked.configDigest, 'exactly the image asked about, not the newer push');
  t.equal(info.Config.Image, v1.ref, 'on its own tag');

  // Decided as a plan in the approval's run, with one step, and applied under the same run id.
  const decided = service.logs.filter((line) => line['msg'] === 'plan decided' && line['run_id'] === runId);
  t.equal(decided.length, 1, 'one plan decided in the approval\'s run');
  t.equal(decided[0]?.['steps'], 1);
  const audit = ((await get(service, `/v1/audit?container=${name}`)).body as { entries: { action: string; outcome: string; run_id: string; to?: { digest?: string } }[] }).entries;
  const update = audit.find((e) => e.action === 'update');
  t.match(update, { outcome: 'updated', run_id: runId }, 'the update is the approval\'s run');
  t.equal(update?.to?.digest?.replace(/^.*@/, ''), asked.digest, 'the audit names the planned digest');

  // The newer push is a candidate of its own: the next run asks about it.
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } });
  t.match((await approvals(service)).find((a) => a.state === 'pending'), { latest_digest: newer.digest }, 'the newer digest asks again');
});
