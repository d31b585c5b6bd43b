// A data directory holding the state of a big host (docs/state.md#sizes), for bench/memory.ts: the last
// check of 1,000 containers and 500 run summaries in the snapshot, 10,000 entries in the audit trail. The
// snapshot is written through the real store; the audit trail is written in one go (the store flushes each
// append to disk, which would make 10,000 appends a benchmark of the disk).
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStateStore, type AuditEntry } from '../core/index.js';

const HOST = 'unix:///var/run/docker.sock';

export async function bigStateDir(containers = 1000, auditEntries = 10_000): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-bench-state-'));
  const store = await openStateStore({ dir });
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
  const lines: string[] = [];
  for (let i = 0; i < auditEntries; i++) {
    const name = `app-${i % containers}`;
    const image = `registry.example/team/${name}:latest`;
    const entry: AuditEntry = {
      id: randomUUID(), time: new Date(Date.now() - (auditEntries - i) * 1000).toISOString(), action: 'update', container: name, host: HOST,
      trigger: 'schedule', run_id: randomUUID(), from: { image, digest: digest('c', i), image_id: digest('b', i) },
      to: { image, digest: digest('a', i), image_id: digest('d', i) }, outcome: 'updated',
    };
    lines.push(JSON.stringify(entry));
  }
  await writeFile(join(dir, 'audit.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}
