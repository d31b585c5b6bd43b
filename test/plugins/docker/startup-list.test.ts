// Start-up lists each engine's containers once (docs/hosts.md#start-up): the repair asks the engine only for the
// containers a replacement renamed or staged (a name filter), the first discovery lists every container, and so
// does each later one. The real engine behind a relay that counts the container lists asked of it, full or filtered.
import { connect, createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import { requireEnv, waitFor } from '../../helpers/env.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { testPrefix } from '../../helpers/images.js';

t.test('the start-up repair asks only for what a replacement left; the first discovery lists once', { timeout: 120_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-startup-list-'));
  let lists = 0;
  const filters: string[] = [];
  const open: { destroy(): void }[] = [];
  const relay: Server = createServer((client) => {
    const upstream = connect(env.dockerSocket);
    open.push(client, upstream);
    client.on('data', (chunk: Buffer) => {
      for (const [, query = ''] of chunk.toString('latin1').matchAll(/(?:^|\r\n)GET \/(?:v[\d.]+\/)?containers\/json(\S*) HTTP/g)) {
        const filter = new URLSearchParams(query.replace(/^\?/, '')).get('filters');
        if (filter) filters.push(filter);
        else lists++;
      }
    });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(join(dir, 'engine.sock'), resolve));
  t.teardown(async () => {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => relay.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  // Scoped to a prefix of its own: an unscoped instance's start-up repair on the shared engine would put back a
  // replacement another test file has under way at that moment (docs/stopping.md#start-up-repair).
  const tw = await createTidewatch({ logger: memoryLogger(), plugins: [{ plugin: dockerPlugin, options: { names: [`${testPrefix('startup-list')}-.*`], host: [`unix://${join(dir, 'engine.sock')}`] } }] });
  // Start-up waits for the repair 2 s at most (docs/hosts.md#start-up): a loaded engine may answer later.
  await waitFor(() => filters.length > 0, 20_000);
  t.same(filters.map((f) => JSON.parse(f) as unknown), [{ name: ['--tidewatch-'] }], 'the repair listed by the name a replacement gives');
  t.equal(lists, 0, 'no full list before the first discovery');
  await tw.targets();
  t.equal(lists, 1, 'the first discovery listed every container once');
  await tw.targets();
  t.equal(lists, 2, 'a later discovery lists again');
  t.equal(filters.length, 1, 'a repaired engine is not asked again');
  await tw.close();
});
