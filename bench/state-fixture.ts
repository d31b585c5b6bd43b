// A data directory holding the state of a big host (docs/state.md#sizes), for bench/memory.ts and
// bench/state.ts: the last check of 1,000 containers, 500 run summaries and 10,000 audit entries, written
// through the real store; the audit trail in one transaction (the store commits each append on its own,
// which would make a million appends a benchmark of the disk).
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../contracts/index.js';
import { openStateStore } from '../plugins/state/store.js';

const HOST = 'unix:///var/run/docker.sock';

export async function bigStateDir(containers = 1000, auditEntries = 10_000): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-bench-state-'));
  const store = await openStateStore({ dir, auditCapacity: Math.max(auditEntries, 100_000) });
  const digest = (c: string, i: number) => `sha256:${c.repeat(8)}${String(i).padStart(56, '0')}`;
  for (let i = 0; i < containers; i++) {
    const name = `app-${i}`;
    const id = randomUUID().replace(/-/g, '').repeat(2);
    store.recordCheck(id, { name, host: HOST, updateAvailable: i % 3 === 0, latestDigest: digest('a', i), checkedAt: new Date().toISOString() });
    store.setPreviousImage(id, { image: `registry.example/team/${name}:latest`, imageId: digest('b', i), digest: digest('c', i), replacedAt: new Date().toISOString() });
  }
  for (let i = 0; i < 500; i++) {
    const at = new Date(Date.now() - (500 - i) * 60_000);
    store.recordHistory({ runId: randomUUID(), kind: 'update', targeted: false, trigger: 'schedule', startedAt: at, finishedAt: at, summary: { scanned: containers, updated: 1, failed: 0, restarted: 0, skipped: 0 } });
  }
  await store.flush();
  store.db.exec('BEGIN');
  for (let i = 0; i < auditEntries; i++) {
    const name = `app-${i % containers}`;
    const image = `registry.example/team/${name}:latest`;
    const entry: AuditEntry = {
      id: randomUUID(), time: new Date(Date.now() - (auditEntries - i) * 1000).toISOString(), action: 'update', container: name, host: HOST,
      trigger: 'schedule', run_id: randomUUID(), from: { image, digest: digest('c', i), image_id: digest('b', i) },
      to: { image, digest: digest('a', i), image_id: digest('d', i) }, outcome: 'updated',
    };
    store.tables.audit.insert(entry);
  }
  store.db.exec('COMMIT');
  await store.close();
  return dir;
}
