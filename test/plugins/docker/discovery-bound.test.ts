// A discovery works on at most DISCOVERY_CONCURRENCY engines at once (docs/performance.md#start-up): 40 names of
// the real engine, each behind a relay that holds every full container list 100 ms and counts the lists in
// flight across all of them. Every engine is still discovered, and the bound is reached (so the count can fail).
import { connect, createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import { DISCOVERY_CONCURRENCY } from '../../../plugins/docker/engine/engines.js';
import { requireEnv } from '../../helpers/env.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { testPrefix } from '../../helpers/images.js';

const ENGINES = 40;
const FULL_LIST = /(?:^|\r\n)GET \/(?:v[\d.]+\/)?containers\/json\?all=(?:1|true) HTTP/;

t.test(`at most ${DISCOVERY_CONCURRENCY} engines list at once, and every engine is discovered`, { timeout: 120_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-discovery-bound-'));
  let inFlight = 0;
  let most = 0;
  let lists = 0;
  const open: Socket[] = [];
  const servers: Server[] = [];
  for (let i = 0; i < ENGINES; i++) {
    const server = createServer((client) => {
      const upstream = connect(env.dockerSocket);
      open.push(client, upstream);
      let awaitingList = false;
      client.on('data', (chunk: Buffer) => {
        if (!FULL_LIST.test(chunk.toString('latin1'))) return void upstream.write(chunk);
        lists++;
        inFlight++;
        most = Math.max(most, inFlight);
        awaitingList = true;
        setTimeout(() => upstream.write(chunk), 100);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (awaitingList) {
          awaitingList = false;
          inFlight--;
        }
        client.write(chunk);
      });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => server.listen(join(dir, `e${i}.sock`), resolve));
    servers.push(server);
  }
  t.teardown(async () => {
    for (const socket of open) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await rm(dir, { recursive: true, force: true });
  });
  const hosts = Array.from({ length: ENGINES }, (_, i) => `unix://${join(dir, `e${i}.sock`)}`);
  const tw = await createTidewatch({ logger: memoryLogger(), plugins: [{ plugin: dockerPlugin, options: { names: [`${testPrefix('discovery-bound')}-.*`], host: hosts } }] });
  t.teardown(() => tw.close());
  await tw.targets();
  t.equal(lists, ENGINES, 'each engine listed once');
  t.equal(most, DISCOVERY_CONCURRENCY, `at most ${DISCOVERY_CONCURRENCY} lists in flight, and that many`);
});
