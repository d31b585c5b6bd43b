// Crash safety of the state on disk (docs/state.md#crash-safety): a child process writes through the real
// store in a loop (the last checks of 1,000 containers, a run summary and an audit entry a round) and is
// SIGKILLed at a random instant, over and over. After every kill the database must open and pass SQLite's
// integrity check, and read back one whole round: never a mix of two, its counter never going back, no
// acknowledged audit entry lost.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { openStateStore } from '../../plugins/state/store.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { REPO_ROOT } from '../helpers/service.js';

const KILLS = 60;
const STORE = pathToFileURL(join(REPO_ROOT, 'dist/plugins/state/store.js')).href;

// Writes as the service does: a check of every container, then the audit entry, round after round.
const WRITER = `
import { openStateStore } from ${JSON.stringify(STORE)};
const store = await openStateStore({ dir: process.argv[1] });
const audited = Number((await store.audit({ limit: 1 }))[0]?.run_id ?? 0);
let round = Math.max(Number(store.lastCheck('counter')?.latestDigest ?? 0), audited);
process.stdout.write('ready\\n');
for (;;) {
  round++;
  for (let i = 0; i < 1000; i++) {
    store.recordCheck('c' + i, { name: 'app-' + i, updateAvailable: round % 2 === 0, latestDigest: 'sha256:' + round, checkedAt: new Date().toISOString() });
  }
  store.recordCheck('counter', { name: 'counter', updateAvailable: false, latestDigest: String(round), checkedAt: new Date().toISOString() });
  const at = new Date();
  store.recordHistory({ runId: String(round), kind: 'check', targeted: false, trigger: 'crash-test', startedAt: at, finishedAt: at, summary: { scanned: 1000, updated: 0, failed: 0, restarted: 0, skipped: 0 } });
  await store.appendAudit({ action: 'update', container: 'app-' + (round % 1000), trigger: 'crash-test', run_id: String(round), outcome: 'updated' });
  await store.flush();
}
`;

function runAndKill(dir: string, afterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), afterMs));
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

t.test(`SIGKILLed ${KILLS} times while writing, the state always reads back complete`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  let lastRound = 0;
  let lastAudit = 0;
  for (let kill = 0; kill < KILLS; kill++) {
    await runAndKill(dir, Math.floor(Math.random() * 120));
    const logger = memoryLogger();
    const store = await openStateStore({ dir, logger });
    const integrity = store.db.prepare('PRAGMA integrity_check').get() as { integrity_check: string };
    if (integrity.integrity_check !== 'ok') t.fail(`kill ${kill}: integrity check: ${integrity.integrity_check}`);
    const corrupt = (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
    if (corrupt.length > 0) t.fail(`kill ${kill}: state moved aside: ${corrupt.join(' ')}`);
    const round = Number(store.lastCheck('counter')?.latestDigest ?? 0);
    if (round < lastRound) t.fail(`kill ${kill}: the snapshot went back from round ${lastRound} to ${round}`);
    if (round > 0) {
      // One snapshot is one round: every container carries that round's digest, none an older or newer one.
      const digests = new Set(Array.from({ length: 1000 }, (_, i) => store.lastCheck(`c${i}`)?.latestDigest));
      if (digests.size !== 1 || !digests.has(`sha256:${round}`)) t.fail(`kill ${kill}: a snapshot mixing rounds: ${[...digests].join(' ')}`);
    }
    lastRound = round;
    // The run summary and the checks of a round commit together with its audit entry.
    const newestRun = Number(store.history().at(-1)?.runId ?? 0);
    if (newestRun !== round) t.fail(`kill ${kill}: run summary of round ${newestRun} beside the checks of round ${round}`);
    const entries = await store.audit();
    const errors = logger.lines.filter((l) => l.level === 'warn' || l.level === 'error');
    if (errors.length > 0) t.fail(`kill ${kill}: ${errors.map((l) => l.text).join('; ')}`);
    const runs = entries.map((e) => Number(e.run_id));
    if (runs.some((r, i) => i > 0 && r <= (runs[i - 1] as number))) t.fail(`kill ${kill}: audit entries out of order`);
    const newest = runs.at(-1) ?? 0;
    if (newest < lastAudit) t.fail(`kill ${kill}: an acknowledged audit entry was lost`);
    lastAudit = newest;
    await store.close();
    t.pass(`kill ${kill}: round ${round} whole`);
  }
  t.ok(lastRound > 0, `the writer got through ${lastRound} rounds in all`);
  t.ok(lastAudit > 0, `and ${lastAudit} audit entries`);
});
