// Watchtower's series on /v1/metrics (docs/http-api.md, "Watchtower's series"), read as Homepage's
// widget reads them: the last update run's counts, update runs counted (checks not), a failed run as
// a run of zeros, and a run refused because another was running as a skipped scan.
import t from 'tap';
import type { Staleness } from '../../../core/index.js';
import { readLikeHomepage, WATCHTOWER_SERIES } from '../../helpers/homepage-widget.js';
import { bearer, gate, sleep, startApi, target } from './helpers/harness.js';

const STALE: Staleness = { source: 'registry', stale: true };

async function widget(url: string) {
  const res = await fetch(`${url}/v1/metrics`, { headers: bearer() });
  if (res.status !== 200) throw new Error(`/v1/metrics: ${res.status}`);
  return readLikeHomepage(await res.text());
}

t.test('the widget finds every series, with the last update run in it', async (t) => {
  let hold: Promise<void> | undefined;
  const h = await startApi(
    {},
    {
      targets: [target('web'), target('db'), target('cache')],
      staleness: new Map([
        ['web', STALE],
        ['db', STALE],
      ]),
      apply: async (plan) => {
        await hold;
        return plan.target.name === 'db'
          ? { target: plan.target, outcome: 'failed', error: 'boom', rolledBack: true }
          : { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());

  const before = await widget(h.url);
  for (const name of WATCHTOWER_SERIES) t.equal(before.number(name), 0, `${name} is 0 before any run`);

  const update = await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  t.equal(update.status, 200);
  let w = await widget(h.url);
  t.same(
    Object.fromEntries(WATCHTOWER_SERIES.map((name) => [name, w.number(name)])),
    {
      watchtower_containers_scanned: 3,
      watchtower_containers_updated: 1,
      watchtower_containers_failed: 1,
      watchtower_containers_restarted: 0,
      watchtower_scans_total: 1,
      watchtower_scans_skipped: 0,
    },
    'the update run: 3 scanned, 1 updated, 1 failed, one scan',
  );
  // The fork's series beside them (the counters start at 0; the gauge follows the run).
  t.equal(w.number('watchtower_containers_skipped'), 0);
  t.equal(w.number('watchtower_containers_restarted_total'), 0);
  t.equal(w.number('watchtower_scans_skipped_total'), 0);

  // A check is not one of Watchtower's scans and leaves the last update run's numbers.
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  w = await widget(h.url);
  t.equal(w.number('watchtower_scans_total'), 1, 'a check is not a scan');
  t.equal(w.number('watchtower_containers_updated'), 1);

  // A full update while another runs is refused (429): a skipped scan; the gauges keep the last run.
  const held = gate();
  hold = held.promise;
  const running = fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  await sleep(100);
  const refused = await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  t.equal(refused.status, 429, 'the second run is refused while the first holds the lock');
  w = await widget(h.url);
  t.equal(w.number('watchtower_scans_skipped'), 1, 'counted as skipped');
  t.equal(w.number('watchtower_scans_skipped_total'), 1, "and under the fork's name");
  t.equal(w.number('watchtower_scans_total'), 2, 'and as a scan, as Watchtower counts it');
  t.equal(w.number('watchtower_containers_scanned'), 3, 'the gauges still show the last run that ran');
  held.open();
  t.equal((await running).status, 200);
  w = await widget(h.url);
  t.equal(w.number('watchtower_scans_total'), 3);
  t.equal(w.number('watchtower_scans_skipped'), 1);
});

t.test('a failed update run is a scan of zeros, as in Watchtower', async (t) => {
  let fail = false;
  const h = await startApi(
    {},
    {
      targets: [target('web')],
      staleness: new Map([['web', STALE]]),
      beforeDiscover: async () => {
        if (fail) throw new Error('engine down');
      },
    },
  );
  t.teardown(() => h.close());
  await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  t.equal((await widget(h.url)).number('watchtower_containers_updated'), 1);
  fail = true;
  await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  const w = await widget(h.url);
  t.equal(w.number('watchtower_scans_total'), 2);
  t.equal(w.number('watchtower_containers_scanned'), 0);
  t.equal(w.number('watchtower_containers_updated'), 0);
  t.equal(w.number('watchtower_scans_skipped'), 0, 'a failed run is not a skipped one');
});
