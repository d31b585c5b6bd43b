// Start-up lists each engine once (docs/hosts.md#start-up): a repair that found nothing hands the container list
// it read to the first discovery, which takes it instead of listing again; a later discovery lists afresh. The
// real engine behind a relay that counts the container lists asked of it.
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

t.test('the start-up repair and the first discovery share one container list', { timeout: 120_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-startup-list-'));
  let lists = 0;
  const open: { destroy(): void }[] = [];
  const relay: Server = createServer((client) => {
    const upstream = connect(env.dockerSocket);
    open.push(client, upstream);
    client.on('data', (chunk: Buffer) => (lists += chunk.toString('latin1').match(/(?:^|\r\n)GET \/(?:v[\d.]+\/)?containers\/json\S* HTTP/g)?.length ?? 0));
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
  await waitFor(() => lists > 0, 20_000);
  await tw.targets();
  t.equal(lists, 1, 'the repair listed the containers, the first discovery took that list');
  await tw.targets();
  t.equal(lists, 2, 'a later discovery lists again');
  await tw.close();
});
