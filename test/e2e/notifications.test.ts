// Notifications through the real binary (docs/notifications.md): an update run sends one report to two
// URLs at once, a generic webhook on loopback and the real MQTT broker, with the right counts and the
// failed replacement's error; monitor-only over three runs (three processes) with one new digest sends
// exactly one message; an endpoint that is down costs the run nothing and is counted as failed.
import { join } from 'node:path';
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { CaptureServer } from '../helpers/capture-server.js';
import { freePort } from '../helpers/loopback-server.js';
import { requireBroker, subscribe } from '../helpers/mqtt.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, runBinary, startService } from '../helpers/service.js';
import { tempDir } from '../helpers/fixtures.js';

const TOKEN = 'e2e-notify-token-0123456789';

async function webhook(t: { teardown(fn: () => unknown): void }): Promise<CaptureServer> {
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  return hook;
}

t.test('one update run, one report to a webhook and to MQTT at once, with the failure in it', async (t) => {
  if (!(await requireBroker(t))) return;
  const s = await scenario(t, 'e2e-notify');
  if (!s) return;
  const { env, prefix } = s;
  const good = await runningOn(s, 'good');
  const bad = await runningOn(s, 'bad');
  await pushNext(s, good);
  await pushNext(s, bad, { cmd: ['/bin/sh', '-c', 'exit 3'] });

  const hook = await webhook(t);
  const broker = env.mqtt as string;
  const topic = `${prefix}/notifications`;
  const subscriber = await subscribe(t, broker, [topic]);
  const published = subscriber.messages;

  const result = await runBinary([
    '--host', env.dockerHost, '--run-once', '--update-grace-period', '1s', '--stop-timeout', '5s',
    '--notification-url', `generic+http://${hook.host}/hook mqtt://${broker}/${topic}`,
    '--notification-report', '--notifications-hostname', 'e2e-host', '--data-dir', await tempDir(t, 'notify-data'),
    `${prefix}-.*`,
  ], {}, 120_000);
  t.equal(result.code, 1, 'run-once exits 1: one update failed');

  await waitFor(() => (hook.requests.length >= 1 && published.length >= 1 ? true : undefined), 10_000);
  t.equal(hook.requests.length, 1, 'one message to the webhook');
  t.equal(published.length, 1, 'one message on the broker');
  const body = hook.requests[0]?.body ?? '';
  t.equal(published[0]?.payload, body, 'the same report to both');
  t.match(body, /^2 Scanned, 1 Updated, 0 Restarted, 1 Failed, 0 Fresh, 0 Skipped\n/, "the default template's counts");
  t.match(body, new RegExp(`- /${prefix}-good \\(.*\\): [0-9a-f]{12} updated to [0-9a-f]{12}`));
  t.match(body, new RegExp(`- /${prefix}-bad \\(.*\\): Failed: new container exited with code 3`), 'the failed replacement with its error');
});

t.test('monitor-only over three runs, across restarts: one new digest, one message', async (t) => {
  const s = await scenario(t, 'e2e-notify-once');
  if (!s) return;
  const { env, prefix } = s;
  const app = await runningOn(s, 'app');
  const hook = await webhook(t);
  const dir = await tempDir(t, 'notify-data');
  await pushNext(s, app);
  for (let run = 1; run <= 3; run++) {
    const result = await runBinary([
      '--host', env.dockerHost, '--run-once', '--monitor-only', '--data-dir', dir,
      '--notification-url', `generic+http://${hook.host}/hook`, `${prefix}-.*`,
    ], {}, 60_000);
    t.equal(result.code, 0, `run ${run}: ${result.stderr}`);
  }
  await new Promise((r) => setTimeout(r, 500));
  t.equal(hook.requests.length, 1, 'three processes, one message');
  t.match(hook.requests[0]?.body, new RegExp(`Found new .*${prefix}/app:latest image \\([0-9a-f]{12}\\)`));

  // Another new digest is news again.
  await pushNext(s, app, { marker: `${app.repo} v3` });
  await runBinary(['--host', env.dockerHost, '--run-once', '--monitor-only', '--data-dir', dir, '--notification-url', `generic+http://${hook.host}/hook`, `${prefix}-.*`]);
  await waitFor(() => (hook.requests.length === 2 ? true : undefined), 5_000);
  t.pass('a newer digest is announced');
});

t.test('an endpoint that is down costs the run nothing and is counted as failed', async (t) => {
  const s = await scenario(t, 'e2e-notify-down');
  if (!s) return;
  const { env, prefix } = s;
  await runningOn(s, 'a');
  await runningOn(s, 'b');
  const closed = await freePort();
  const dir = await tempDir(t, 'notify-data');
  const start = (urls: string[]) =>
    startService([
      '--host', env.dockerHost, '--http-api-endpoints', 'update,metrics', '--http-api-token', TOKEN,
      ...urls.flatMap((u) => ['--notification-url', u]), '--notification-report', '--notification-template', 'json.v1', '--data-dir', dir,
      `${prefix}-.*`,
    ]);
  const timed = async (url: string) => {
    const started = Date.now();
    const res = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
    return { ms: Date.now() - started, summary: (res.body as { summary: unknown }).summary };
  };

  const hook = await webhook(t);
  const healthy = await start([`generic+http://${hook.host}/hook?template=json`]);
  t.teardown(() => healthy.stop('SIGKILL'));
  await timed(healthy.url);
  const baseline = await timed(healthy.url);
  await healthy.stop('SIGTERM');

  const down = await start([`generic+http://127.0.0.1:${closed}/hook?template=json`]);
  t.teardown(() => down.stop('SIGKILL'));
  await timed(down.url);
  const withDown = await timed(down.url);
  t.same(withDown.summary, baseline.summary, 'the same summary');
  t.ok(withDown.ms < baseline.ms + 1000, `the same duration within noise: ${withDown.ms} ms against ${baseline.ms} ms`);

  const failedCount = async () => {
    const metrics = await call(`${down.url}/v1/metrics`, { token: TOKEN });
    return /tidewatch_notifications_total\{service="generic",result="failed"\} (\d+)/.exec(metrics.text)?.[1];
  };
  // Four attempts, 2, 4 and 8 s apart, for each of the two runs.
  const counted = await waitFor(async () => ((await failedCount()) === '2' ? '2' : undefined), 40_000, 500);
  t.equal(counted, '2', 'each run counted as one failed notification');
  t.ok(down.logs.some((l) => /notification failed/.test(String(l['msg'])) && !/token/.test(JSON.stringify(l))), 'logged');
});

t.test('--porcelain v1 writes a line per container to stdout', async (t) => {
  const s = await scenario(t, 'e2e-porcelain');
  if (!s) return;
  const { env, prefix } = s;
  const stale = await runningOn(s, 'stale');
  const fresh = await runningOn(s, 'fresh');
  await pushNext(s, stale);
  const result = await runBinary([
    '--host', env.dockerHost, '--run-once', '--porcelain', 'v1', '--update-grace-period', '1s', '--data-dir', await tempDir(t, 'notify-data'), `${prefix}-.*`,
  ], {}, 60_000);
  t.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n').filter((line) => !line.startsWith('{'));
  // `.Name` with Watchtower's leading `/` (docs/notifications.md), as its porcelain.v1 prints it.
  t.ok(lines.includes(`/${stale.name} (${stale.image.ref}): Updated`), `updated line in:\n${lines.join('\n')}`);
  t.ok(lines.includes(`/${fresh.name} (${fresh.image.ref}): Fresh`), 'fresh line');
});
