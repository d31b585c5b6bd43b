// Benchmark (not a test): what the state store writes and how its lists answer (docs/performance.md#state).
//
//   npm run build
//   node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/state.ts [--audit 1000000]
//
// 1. One recorded change at 10,000 containers: bytes this process wrote (write(2) calls, /proc/self/io
//    wchar: the database and its WAL) for one container's new last check, previous image and audit entry.
//    Target <= 64 KB.
// 2. A repeated check of 5,000 containers in which nothing changed: bytes written. Target <= 64 KB.
// 3. GET /v1/audit?limit=100 over --audit entries (default 1,000,000) through the real service: median time
//    of 20 calls, newest page, a filtered page and a deep page (following next 5 times), and the service's
//    peak RSS (VmHWM) through them. Targets: <= 20 ms, RSS <= 200 MB.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LastCheck } from '../contracts/index.js';
import { openStateStore } from '../plugins/state/store.js';
import { call, startService } from '../test/helpers/service.js';
import { argument, median } from './cli.js';
import { bigStateDir } from './state-fixture.js';

const AUDIT = Number(argument('audit', '1000000'));
const TOKEN = 'bench-state-token-0123456789';
const KB = 1024;

function written(): number {
  const line = readFileSync('/proc/self/io', 'utf8').split('\n').find((l) => l.startsWith('wchar:'));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const check = (i: number, at: string, stale = false): LastCheck => ({
  name: `app-${i}`,
  host: 'unix:///var/run/docker.sock',
  updateAvailable: stale,
  latestDigest: `sha256:${String(i).padStart(64, '0')}`,
  checkedAt: at,
});

async function writes(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-bench-writes-'));
  try {
    const store = await openStateStore({ dir });
    const first = new Date().toISOString();
    for (let i = 0; i < 10_000; i++) {
      store.recordCheck(`id${i}`, check(i, first));
      store.setPreviousImage(`id${i}`, { image: `registry.example/app-${i}:1`, imageId: `sha256:${String(i).padStart(64, 'b')}`, digest: '', replacedAt: first });
    }
    await store.flush();
    store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');

    let before = written();
    const at = new Date().toISOString();
    store.recordCheck('id4242', check(4242, at, true));
    store.setPreviousImage('id4242', { image: 'registry.example/app-4242:2', imageId: `sha256:${'c'.repeat(64)}`, digest: '', replacedAt: at });
    await store.appendAudit({ action: 'update', container: 'app-4242', trigger: 'bench', run_id: 'r', outcome: 'updated' });
    await tick();
    const change = written() - before;
    console.log(`one recorded change at 10,000 containers (check, previous image, audit entry): ${(change / KB).toFixed(1)} KB written (target <= 64 KB: ${change <= 64 * KB ? 'met' : 'NOT met'})`);

    const again = new Date(Date.now() + 1000).toISOString();
    before = written();
    for (let i = 0; i < 5_000; i++) store.recordCheck(`id${i}`, { ...check(i, again, i === 4242) });
    await tick();
    const repeated = written() - before;
    console.log(`repeated check of 5,000 unchanged containers: ${(repeated / KB).toFixed(1)} KB written (target <= 64 KB: ${repeated <= 64 * KB ? 'met' : 'NOT met'})`);
    before = written();
    await store.close();
    console.log(`  their times written at shutdown: ${((written() - before) / KB).toFixed(1)} KB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

async function audit(): Promise<void> {
  let started = performance.now();
  const dir = await bigStateDir(1000, AUDIT);
  console.log(`data directory with ${AUDIT} audit entries written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const service = await startService(['--data-dir', dir, '--http-api-endpoints', 'audit,history', '--http-api-token', TOKEN, '--host', 'unix:///nonexistent.sock', '--interval', '86400'], {}, 180_000);
  try {
    const pid = service.child.pid as number;
    const timed = async (path: string) => {
      started = performance.now();
      const res = await call(`${service.url}${path}`, { token: TOKEN });
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return { ms, body: res.body as { count: number; next?: string } };
    };
    for (let i = 0; i < 5; i++) await timed('/v1/audit?limit=100');
    const newest: number[] = [];
    const filtered: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < 20; i++) {
      started = performance.now();
      await call(`${service.url}/livez`);
      floor.push(performance.now() - started);
      newest.push((await timed('/v1/audit?limit=100')).ms);
      filtered.push((await timed('/v1/audit?limit=100&container=app-7&since=2020-01-01T00:00:00Z')).ms);
    }
    let cursor = (await timed('/v1/audit?limit=1000')).body.next;
    const deep: number[] = [];
    for (let i = 0; i < 5 && cursor; i++) {
      const page = await timed(`/v1/audit?limit=100&cursor=${cursor}`);
      deep.push(page.ms);
      cursor = page.body.next;
    }
    const big = await timed('/v1/audit?limit=1000');
    console.log(`GET /v1/audit?limit=100 over ${AUDIT} entries, median of 20: ${median(newest).toFixed(1)} ms (target <= 20 ms); with container and since: ${median(filtered).toFixed(1)} ms; a page after following next: ${median(deep).toFixed(1)} ms; limit=1000: ${big.ms.toFixed(1)} ms`);
    console.log(`  floor, GET /livez in the same rounds: ${median(floor).toFixed(1)} ms`);
    console.log(`service peak RSS (VmHWM) through all of them: ${peakRss(pid).toFixed(1)} MB (target <= 200 MB)`);
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
await writes();
await audit();
console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
