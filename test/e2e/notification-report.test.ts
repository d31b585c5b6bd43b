// docs/notifications.md#what-is-sent-and-when through the real binary: with --notification-report and the
// `default` template, an update run always sends its summary, as Watchtower (the maintained fork) does, while a
// check gives the template no report, as Watchtower's check endpoint does: a check with nothing new sends
// nothing, and one that finds a new image sends that one line.
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { CaptureServer } from '../helpers/capture-server.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-notify-report-token-0123';

t.test('--notification-report: a check with nothing to report sends nothing; an update run sends its summary', async (t) => {
  const s = await scenario(t, 'e2e-notify-report');
  if (!s) return;
  const app = await runningOn(s, 'app');
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  const service = await startService([
    '--host', s.env.dockerHost, '--http-api-endpoints', 'check,update', '--http-api-token', TOKEN, '--monitor-only',
    '--notification-url', `generic+http://${hook.host}/hook`, '--notification-report', `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  const post = (path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });

  const summary = /^1 Scanned, 0 Updated, 0 Restarted, 0 Failed, 1 Fresh, 0 Skipped\n/;
  t.match((await post('/v1/update')).body, { summary: { scanned: 1, updated: 0 } }, 'an update run with nothing to update');
  await waitFor(() => (hook.requests.length >= 1 ? true : undefined), 10_000);
  t.match(hook.requests[0]?.body, summary, 'sends its summary');
  t.equal((await post('/v1/check')).status, 200, 'a check that finds nothing new');
  t.match((await post('/v1/update')).body, { summary: { scanned: 1, updated: 0 } });
  await waitFor(() => (hook.requests.length >= 2 ? true : undefined), 10_000);
  // Deliveries go out in order: anything the check sent would be here before the second summary.
  await new Promise((r) => setTimeout(r, 2000));
  t.same(hook.requests.map((r) => summary.test(r.body)), [true, true], 'two summaries, and nothing from the check');

  const v2 = await pushNext(s, app);
  t.equal((await post('/v1/check')).status, 200, 'a check that finds a new image');
  await waitFor(() => (hook.requests.length >= 3 ? true : undefined), 10_000);
  t.equal(hook.requests[2]?.body.trim(), `Found new ${app.image.ref} image (${v2.digest.slice(7, 19)})`, 'its entry alone, no summary');
});
