// A container whose last check failed says so in GET /v1/containers and /v1/containers/details
// (`check_error`, docs/http-api.md#containers), from the in-memory last checks and from the state store
// across a reopen (docs/state.md#last-checks), so the dashboard's remembered rows show an error, not
// "up to date". The message is kept to 200 characters: a registry error can carry a whole answer body.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openStateStore, type CheckResult, type EventPayloads } from '../../../core/index.js';
import { storeState } from '../../../plugins/http-api/last-checks.js';
import { withLastCheck, type ContainerView } from '../../../plugins/http-api/routes/containers.js';
import { recordChecks } from '../../../plugins/state/check-state.js';
import { bearer, startApi, target } from './helpers/harness.js';

/** A check run's report as the state plugin receives it. */
function checkReport(results: CheckResult[]): EventPayloads['run_report'] {
  const now = new Date();
  return { run_id: 'r', kind: 'check', report: { runId: 'r', results, startedAt: now, finishedAt: now } };
}

type LastCheckView = Pick<ContainerView, 'update_available' | 'latest_digest' | 'checked_at' | 'check_error' | 'held' | 'rollback_available'>;
const viewOf = (t: ReturnType<typeof target>, known: ReturnType<typeof storeState>): LastCheckView => withLastCheck<LastCheckView>({}, t, known);

const LONG = `registry answered 500: ${'x'.repeat(400)}`;

t.test('the API: check_error only on the container whose check failed, bounded', async (t) => {
  const ok = target('ok');
  const broken = target('broken');
  const chatty = target('chatty');
  const h = await startApi({}, {
    targets: [ok, broken, chatty],
    staleness: new Map([
      ['broken', { source: 'registry', stale: false, error: 'manifest unknown' }],
      ['chatty', { source: 'registry', stale: false, error: LONG }],
    ]),
  });
  t.teardown(() => h.close());
  t.equal((await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() })).status, 200);
  for (const path of ['/v1/containers', '/v1/containers/details']) {
    const body = (await (await fetch(`${h.url}${path}`, { headers: bearer() })).json()) as { containers: Record<string, unknown>[] };
    const byName = new Map(body.containers.map((c) => [c['name'], c]));
    t.match(byName.get('broken'), { update_available: false, check_error: 'manifest unknown', checked_at: String }, `${path}: the failed check's error`);
    t.notOk('check_error' in (byName.get('ok') ?? {}), `${path}: none where the check succeeded`);
    const kept = byName.get('chatty')?.['check_error'] as string;
    t.equal(kept.length, 200, `${path}: a long error is kept to 200 characters`);
    t.ok(kept.startsWith('registry answered 500: xxx') && kept.endsWith('…'));
  }
});

t.test('the state store: the error survives a reopen, and a later successful check clears it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-check-error-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const broken = target('broken');
  const store = await openStateStore({ dir });
  const checkedAt = new Date('2026-11-24T10:00:00.000Z');
  recordChecks(store, checkReport([{ target: broken, staleness: { source: 'registry', stale: true, error: LONG }, checkedAt }]));
  await store.flush();
  const view = viewOf(broken, storeState(await openStateStore({ dir })));
  t.equal(view.update_available, false, 'a failed check is never an update');
  t.equal(view.check_error?.length, 200);
  t.equal(view.checked_at, checkedAt.toISOString());

  recordChecks(store, checkReport([{ target: broken, staleness: { source: 'registry', stale: false }, checkedAt: new Date() }]));
  t.notOk('check_error' in viewOf(broken, storeState(store)), 'cleared by the next check that did not fail');
});
