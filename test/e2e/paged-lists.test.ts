// The lists plugins keep page through the real binary (docs/http-api.md#pages): GET /v1/tokens and
// GET /v1/approvals answer `limit`, `cursor` and `next` as /v1/audit does, newest page first and oldest first
// within a page, filters before paging; a limit above 1000 and a cursor this server did not give are 400;
// the pages hold across a restart; and the approvals an earlier version kept in one record are moved once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LEDGER_EXTENSION } from '../../plugins/policies/approval-ledger.js';
import { openStateStore } from '../../plugins/state/store.js';
import { requireEnv } from '../helpers/env.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-paged-lists-main-token-0123456';

interface Listed {
  status: number;
  body: Record<string, unknown>;
}

async function follow(service: RunningService, path: string, field: string): Promise<{ pages: Record<string, unknown>[][]; counts: number[] }> {
  const pages: Record<string, unknown>[][] = [];
  const counts: number[] = [];
  let next: string | undefined;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = (await call(`${service.url}${path}${next ? `${sep}cursor=${encodeURIComponent(next)}` : ''}`, { token: TOKEN })) as unknown as Listed;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    pages.push(res.body[field] as Record<string, unknown>[]);
    counts.push(res.body['count'] as number);
    next = res.body['next'] as string | undefined;
  } while (next !== undefined && pages.length < 100);
  return { pages, counts };
}

t.test('tokens and approvals page through the binary', { timeout: 180_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-paged-lists-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  // 25 decided approvals as the release before this one kept them: one record, rewritten whole.
  const seed = await openStateStore({ dir });
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  const digest = (i: number) => `sha256:${String(i % 10).repeat(64)}`;
  seed.setExtension(
    LEDGER_EXTENSION,
    Array.from({ length: 25 }, (_, i) => ({
      id: `seed${String(i).padStart(2, '0')}`,
      container: i % 2 ? 'odd' : 'even',
      container_id: `cid${i % 2}`,
      image: 'registry.example/app:1.0.0',
      latest_digest: digest(i),
      requested_at: at(i),
      state: i % 3 === 0 ? 'applied' : 'rejected',
      decided_at: at(i),
      decided_by: 'api',
    })),
  );
  await seed.close();

  const serve = async (): Promise<RunningService> => {
    const service = await startService([
      '--host', env.dockerHost,
      '--http-api-endpoints', 'tokens,approvals',
      '--http-api-token', TOKEN,
      '--data-dir', dir,
      // No container matches: the lists are what is under test.
      'e2e-paged-lists-nothing-.*',
    ]);
    t.teardown(() => service.stop('SIGKILL'));
    return service;
  };
  let service = await serve();
  const create = async (name: string) => {
    const res = await fetch(`${service.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, role: 'viewer' }),
    });
    t.equal(res.status, 201, `token ${name} created`);
    return (await res.json()) as { id: string };
  };
  const made = [];
  for (let i = 0; i < 7; i++) made.push(await create(`ci-${i}`));
  const revoked = await call(`${service.url}/v1/tokens/${made[3]!.id}`, { method: 'DELETE', token: TOKEN });
  t.equal(revoked.status, 200);

  const tokenNames = async () => {
    const { pages, counts } = await follow(service, '/v1/tokens?limit=2', 'tokens');
    return { names: pages.map((p) => p.map((v) => v['name'])), counts };
  };
  const expected = [['ci-5', 'ci-6'], ['ci-2', 'ci-4'], ['ci-0', 'ci-1']];
  t.same(await tokenNames(), { names: expected, counts: [2, 2, 2] }, 'live tokens only, newest page first, count per page');
  const first = (await call(`${service.url}/v1/tokens`, { token: TOKEN })) as unknown as Listed;
  t.equal((first.body['tokens'] as unknown[]).length, 6, 'the default page holds them all');
  t.notOk('next' in first.body, 'no next on the last page');
  t.notOk(JSON.stringify(first.body).includes('hash'), 'no hash in the list');

  const bad = async (path: string, code: string | RegExp) => {
    const res = (await call(`${service.url}${path}`, { token: TOKEN })) as unknown as Listed;
    t.equal(res.status, 400, `${path}: 400`);
    t.match(res.body, { code }, `${path}: ${code}`);
  };
  await bad('/v1/tokens?limit=1001', 'TW_ERR_HTTP_BAD_QUERY');
  await bad('/v1/tokens?limit=-1', 'TW_ERR_HTTP_BAD_QUERY');
  await bad('/v1/tokens?cursor=bm9wZQ', 'TW_ERR_STATE_CURSOR');
  await bad('/v1/approvals?limit=abc', 'TW_ERR_HTTP_BAD_QUERY');
  await bad('/v1/approvals?cursor=bm9wZQ', 'TW_ERR_STATE_CURSOR');
  await bad('/v1/approvals?state=maybe', /^TW_ERR_HTTP_/);

  const all = await follow(service, '/v1/approvals?limit=10', 'approvals');
  t.same(all.counts, [10, 10, 5], 'the 25 moved from the old record, in pages');
  t.same(
    all.pages.flatMap((p) => p.map((a) => a['id'])),
    [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 1, 2, 3, 4].map((i) => `seed${String(i).padStart(2, '0')}`),
    'newest page first, oldest first within a page',
  );
  const filtered = await follow(service, '/v1/approvals?state=rejected&container=odd&limit=3', 'approvals');
  const wanted = Array.from({ length: 25 }, (_, i) => i).filter((i) => i % 2 === 1 && i % 3 !== 0);
  t.same(filtered.pages.flat().map((a) => a['id']).sort(), wanted.map((i) => `seed${String(i).padStart(2, '0')}`), 'filters before paging');
  t.ok(filtered.pages.flat().every((a) => a['state'] === 'rejected' && a['container'] === 'odd'));
  t.same(filtered.counts, [3, 3, 2]);

  t.equal(await service.stop(), 0, 'stopped cleanly');
  service = await serve();
  t.same(await tokenNames(), { names: expected, counts: [2, 2, 2] }, 'the same pages after a restart');
  t.same((await follow(service, '/v1/approvals?limit=1000', 'approvals')).counts, [25], 'and the approvals, moved once');
});
