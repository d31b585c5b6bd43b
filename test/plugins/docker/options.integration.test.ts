// Update options and labels against the real engine: monitor-only (and label precedence), no-restart,
// lifecycle hooks (pre-update exit 75 skips, post-update runs in the new container) and stop-signal.
import t, { type Test } from 'tap';
import type Docker from 'dockerode';
import type { DockerPluginOptions } from '../../../plugins/docker/index.js';
import { tidewatchFor } from './fixtures/setup.js';
import { QUICK_STOP_CMD, pushNext, runningOn, scenario, type Scenario } from '../../helpers/scenarios.js';

async function execExitCode(engine: Docker, container: string, cmd: string[]): Promise<number | null> {
  const exec = await engine.getContainer(container).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ Detach: false });
  for await (const _ of stream) void _;
  return (await exec.inspect()).ExitCode;
}

interface Stale extends Scenario {
  readonly name: string;
  readonly old: Docker.Container;
  readonly next: string;
}

/** A container on v1 of its own repository, and v2 pushed: stale. */
async function staleContainer(
  t: Test,
  label: string,
  run: { labels?: Record<string, string>; cmd?: string[] } = {},
): Promise<Stale | undefined> {
  const s = await scenario(t, `docker-${label}`);
  if (!s) return undefined;
  const running = await runningOn(s, 'app', { run });
  const v2 = await pushNext(s, running);
  return { ...s, name: running.name, old: running.container, next: v2.configDigest };
}

async function update(s: Stale, options: DockerPluginOptions) {
  const { tw } = await tidewatchFor(s.env, s.prefix, options);
  try {
    return await tw.update();
  } finally {
    await tw.close();
  }
}

t.test('monitor-only: the label, the option, and label precedence', async (t) => {
  const s = await staleContainer(t, 'monitor', { labels: { 'tidewatch.monitor-only': 'false' } });
  if (!s) return;
  const reported = await update(s, { monitorOnly: true });
  t.match(reported.summary, { scanned: 1, updated: 0, skipped: 0, failed: 0 }, 'reported, counted as scanned');
  t.equal((await s.engine.getContainer(s.name).inspect()).Id, s.old.id, 'not replaced');
  const updated = await update(s, { monitorOnly: true, labelTakePrecedence: true });
  t.match(updated.summary, { updated: 1 }, 'the label (false) wins with labelTakePrecedence');
});

t.test('no-restart: recreated on the new image, not started', async (t) => {
  const s = await staleContainer(t, 'norestart');
  if (!s) return;
  const report = await update(s, { noRestart: true });
  t.match(report.summary, { updated: 1 });
  const now = await s.engine.getContainer(s.name).inspect();
  t.equal(now.Image, s.next);
  t.equal(now.State.Status, 'created');
});

t.test('pre-update exit 75 skips the update; post-update runs in the new container', async (t) => {
  const s = await staleContainer(t, 'hooks', {
    labels: { 'tidewatch.lifecycle.pre-update': 'test -f /tmp/go || exit 75', 'tidewatch.lifecycle.post-update': 'touch /tmp/post-update-ran' },
    cmd: QUICK_STOP_CMD,
  });
  if (!s) return;
  const deferred = await update(s, { enableLifecycleHooks: true });
  t.match(deferred.results, [{ outcome: 'skipped', reason: /exit code 75/ }]);
  t.match(deferred.summary, { skipped: 1, updated: 0 });
  t.equal((await s.engine.getContainer(s.name).inspect()).Id, s.old.id, 'not replaced');

  t.equal(await execExitCode(s.engine, s.name, ['touch', '/tmp/go']), 0);
  const done = await update(s, { enableLifecycleHooks: true });
  t.match(done.summary, { updated: 1 });
  t.equal(await execExitCode(s.engine, s.name, ['test', '-f', '/tmp/post-update-ran']), 0, 'post-update ran in the new container');
});

t.test('the stop-signal label is the signal a container is stopped with', async (t) => {
  // This process ignores SIGTERM and exits on SIGUSR1: only the label makes its stop quick.
  const s = await staleContainer(t, 'signal', {
    labels: { 'com.centurylinklabs.watchtower.stop-signal': 'SIGUSR1' },
    cmd: ['/bin/sh', '-c', "trap '' TERM; trap 'exit 0' USR1; sleep 3600 & wait; sleep 3600 & wait"],
  });
  if (!s) return;
  const started = Date.now();
  const report = await update(s, { stopTimeoutMs: 20_000, gracePeriodMs: 200 });
  t.match(report.summary, { updated: 1 });
  t.ok(Date.now() - started < 10_000, `stopped by the label's signal, not killed after the timeout (${Date.now() - started} ms)`);
});

t.test('pre-check and post-check run in every checked container of an update run', async (t) => {
  const s = await staleContainer(t, 'checks', {
    labels: {
      'tidewatch.lifecycle.pre-check': 'echo pre >> /tmp/checks',
      'com.centurylinklabs.watchtower.lifecycle.post-check': 'echo post >> /tmp/checks',
    },
    cmd: QUICK_STOP_CMD,
  });
  if (!s) return;
  const report = await update(s, { enableLifecycleHooks: true, monitorOnly: true });
  t.match(report.summary, { scanned: 1, updated: 0 });
  t.equal(await execExitCode(s.engine, s.name, ['sh', '-c', 'test "$(cat /tmp/checks)" = "$(printf "pre\\npost")"']), 0, 'pre-check, then post-check');
});
