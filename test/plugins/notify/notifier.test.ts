// The notifier's decisions (docs/notifications.md): what a run sends, pending updates announced once per
// new image (also across a restart, through the state file), the mute label, levels, split by container;
// and delivery: retried with backoff, never thrown, counted, logged without credentials.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CheckResult, EventPayloads } from '../../../core/index.js';
import type { NotificationMessage, NotificationSender } from '../../../plugins/notify/service.js';
import { AnnouncedUpdates, ANNOUNCED_FILE } from '../../../plugins/notify/announced.js';
import { deliver } from '../../../plugins/notify/deliver.js';
import { Notifier, type MessageParts } from '../../../plugins/notify/notifier.js';
import type { NotificationLevel } from '../../../plugins/notify/options.js';
import { runOutcome } from '../../../plugins/notify/outcome.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { fakeTarget } from '../../helpers/targets.js';

const OLD = `sha256:${'a'.repeat(64)}`;
const NEW = `sha256:${'b'.repeat(64)}`;
const NEWER = `sha256:${'c'.repeat(64)}`;

function check(name: string, stale: boolean, latest = NEW, labels: Record<string, string> = {}): CheckResult {
  return {
    target: fakeTarget(name, { imageId: OLD, image: `example/${name}:latest`, labels }),
    staleness: { source: 'registry', stale, ...(stale ? { latestDigest: latest } : {}) },
    checkedAt: new Date(),
  };
}

function checkRun(results: CheckResult[]): EventPayloads['run_report'] {
  return { run_id: 'r', kind: 'check', report: { runId: 'r', results, startedAt: new Date(), finishedAt: new Date() } };
}

/** A render that lists the parts, so the assertions see what the notifier chose. */
const listing = (parts: MessageParts): NotificationMessage => ({
  title: 't',
  body: [...parts.containers.filter((c) => c.state !== 'Fresh').map((c) => `${c.target.name}:${c.state}`), ...parts.entries.map((e) => e.message)].join('\n'),
});

async function notifier(t: { teardown(fn: () => unknown): void }, options: { level?: NotificationLevel; split?: boolean; dir?: string } = {}) {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'tw-notify-')));
  const announced = await AnnouncedUpdates.open(dir, memoryLogger());
  // After the last background save, or the directory is removed under it.
  if (!options.dir) t.teardown(async () => {
    await announced.save();
    await rm(dir, { recursive: true, force: true });
  });
  const sent: NotificationMessage[] = [];
  const sender: NotificationSender = { service: 'test', redacted: 'test://', send: async (m) => void sent.push(m) };
  const n = new Notifier({
    senders: [sender], level: options.level ?? 'info', splitByContainer: options.split ?? false, delayMs: 0, announced,
    render: listing, logger: memoryLogger(), report: () => undefined,
  });
  return { n, announced, dir, sent };
}

t.test('a pending update is announced once per new image, also across a restart', async (t) => {
  const first = await notifier(t);
  const run = () => first.n.messagesFor(runOutcome(checkRun([check('web', true), check('db', false)])));
  const messages = run();
  t.equal(messages.length, 1);
  t.match(messages[0]?.body, /web:Stale/);
  t.match(messages[0]?.body, /Found new example\/web:latest image \(bbbbbbbbbbbb\)/);
  t.same(run(), [], 'the second run with the same image sends nothing');
  await first.announced.save();
  t.match(JSON.parse(await readFile(join(first.dir, ANNOUNCED_FILE), 'utf8')), { announced: { web: NEW } });

  const restarted = await notifier(t, { dir: first.dir });
  t.same(restarted.n.messagesFor(runOutcome(checkRun([check('web', true)]))), [], 'after a restart: still announced');
  const newer = restarted.n.messagesFor(runOutcome(checkRun([check('web', true, NEWER)])));
  t.equal(newer.length, 1, 'a newer image is news again');
  t.match(newer[0]?.body, /cccccccccccc/);
});

t.test('a container that became fresh is forgotten: its next new image is announced', async (t) => {
  const { n } = await notifier(t);
  t.equal(n.messagesFor(runOutcome(checkRun([check('web', true)]))).length, 1);
  t.same(n.messagesFor(runOutcome(checkRun([check('web', false)]))), []);
  t.equal(n.messagesFor(runOutcome(checkRun([check('web', true)]))).length, 1);
});

t.test('tidewatch.notify=false mutes a container', async (t) => {
  const { n } = await notifier(t);
  const muted = check('quiet', true, NEW, { 'tidewatch.notify': 'false' });
  t.same(n.messagesFor(runOutcome(checkRun([muted]))), []);
  const messages = n.messagesFor(runOutcome(checkRun([muted, check('web', true)])));
  t.notMatch(messages[0]?.body, /quiet/);
});

t.test('levels: error drops info entries; updates sends only runs that updated or failed', async (t) => {
  const errorsOnly = await notifier(t, { level: 'error' });
  const failedCheck: CheckResult = { ...check('broken', false), staleness: { source: 'registry', stale: false, error: 'registry down' } };
  const messages = errorsOnly.n.messagesFor(runOutcome(checkRun([check('web', true), failedCheck])));
  t.notMatch(messages[0]?.body, /Found new/, 'info entries dropped');

  const updates = await notifier(t, { level: 'updates' });
  t.same(updates.n.messagesFor(runOutcome(checkRun([check('web', true)]))), [], 'a stale container alone is not an update');
  const target = fakeTarget('api', { imageId: OLD, image: 'example/api:latest' });
  const updateRun: EventPayloads['run_report'] = {
    run_id: 'u', kind: 'update',
    report: {
      runId: 'u', targeted: false, startedAt: new Date(), finishedAt: new Date(),
      summary: { scanned: 2, updated: 1, failed: 0, restarted: 0, skipped: 0 },
      checks: [{ target, staleness: { source: 'registry', stale: true, latestDigest: NEW }, checkedAt: new Date() }, check('web', true)],
      results: [{ target, outcome: 'updated', oldImageId: OLD, newImageId: NEW }],
      skipped: [],
    },
  };
  const sent = updates.n.messagesFor(runOutcome(updateRun));
  t.equal(sent.length, 1);
  t.match(sent[0]?.body, /api:Updated/);
  t.match(sent[0]?.body, /Updated \/api from aaaaaaaaaaaa to bbbbbbbbbbbb/);
  t.notMatch(sent[0]?.body, /Found new example\/web/, 'only the entries of updated or failed containers');
});

t.test('split by container: one message per updated or failed container', async (t) => {
  const { n } = await notifier(t, { split: true });
  const a = fakeTarget('a', { imageId: OLD });
  const b = fakeTarget('b', { imageId: OLD });
  const event: EventPayloads['run_report'] = {
    run_id: 'u', kind: 'update',
    report: {
      runId: 'u', targeted: false, startedAt: new Date(), finishedAt: new Date(),
      summary: { scanned: 2, updated: 1, failed: 1, restarted: 0, skipped: 0 },
      checks: [a, b].map((target) => ({ target, staleness: { source: 'registry', stale: true, latestDigest: NEW }, checkedAt: new Date() })),
      results: [{ target: a, outcome: 'updated', oldImageId: OLD, newImageId: NEW }, { target: b, outcome: 'failed', error: 'boom', rolledBack: true }],
      skipped: [],
    },
  };
  const messages = n.messagesFor(runOutcome(event));
  t.equal(messages.length, 2);
  t.match(messages[0]?.body, /^a:Updated/);
  t.match(messages[1]?.body, /^b:Failed[\s\S]*Unable to update container "\/b": boom/);
});

t.test('delivery retries with backoff, then counts the failure; never throws', async (t) => {
  const logger = memoryLogger();
  const counted: string[] = [];
  let calls = 0;
  const flaky: NotificationSender = {
    service: 'generic',
    redacted: 'generic://example.test/hook?token=REDACTED',
    send: async () => {
      calls++;
      if (calls < 3) throw new Error('503 Service Unavailable');
    },
  };
  const ctx = { logger, signal: new AbortController().signal, report: (s: string, r: string) => void counted.push(`${s}:${r}`), policy: { attempts: 3, backoffMs: 5 } };
  t.equal(await deliver(flaky, { title: '', body: 'x' }, ctx), true);
  t.equal(calls, 3);
  t.same(counted, ['generic:sent']);

  const down: NotificationSender = { ...flaky, send: async () => { throw new Error('connect ECONNREFUSED'); } };
  const started = Date.now();
  t.equal(await deliver(down, { title: '', body: 'x' }, ctx), false);
  t.ok(Date.now() - started >= 15, 'waited 5 + 10 ms between the attempts');
  t.same(counted, ['generic:sent', 'generic:failed']);
  t.ok(logger.lines.some((l) => /giving up/.test(l.msg ?? '') && l.obj['url'] === 'generic://example.test/hook?token=REDACTED'));
});

t.test('the notifier delivers off the run path and close() waits for the queue', async (t) => {
  const { n, sent } = await notifier(t);
  n.onRunReport(checkRun([check('web', true)]));
  t.equal(sent.length, 0, 'nothing was sent synchronously');
  await n.close();
  t.equal(sent.length, 1);
});

t.test('a failed candidate that is not retried is one warning line, once (docs/state.md#failed-candidates)', async (t) => {
  const { n } = await notifier(t);
  const web = check('web', true);
  const reason = `not retried: ${NEW} failed at 2026-11-26T11:00:00.000Z: exited with code 3; POST /v1/update?container=web tries it again`;
  const summary = { scanned: 1, updated: 0, failed: 0, restarted: 0, skipped: 0 };
  const base = { runId: 'r', targeted: false, summary, checks: [web], startedAt: new Date(), finishedAt: new Date() };
  const skippedRun = (): EventPayloads['run_report'] => ({
    run_id: 'r', kind: 'update', report: { ...base, results: [], skipped: [{ target: web.target, reason }] },
  });
  const failedRun: EventPayloads['run_report'] = {
    run_id: 'r', kind: 'update',
    report: { ...base, results: [{ target: web.target, outcome: 'failed', error: 'exited with code 3', rolledBack: true, candidateFailed: true }], skipped: [] },
  };
  t.match(n.messagesFor(runOutcome(failedRun))[0]?.body, /Unable to update container "\/web"/);
  const first = n.messagesFor(runOutcome(skippedRun()));
  t.equal(first.length, 1);
  t.match(first[0]?.body, /Not retrying example\/web:latest for \/web: sha256:b+ failed at .*exited with code 3/);
  t.notMatch(first[0]?.body, /Found new/, 'not announced as a new image to come');
  t.same(n.messagesFor(runOutcome(skippedRun())), [], 'the next runs say nothing more');
});
