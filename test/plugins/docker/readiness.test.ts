// Readiness of an engine (docs/hosts.md#when-an-engine-is-down): an engine that answered a call with success in
// the last 2 s is ready without a ping of its own, so a probe during start-up or a run queues nothing behind the
// engine's work; an idle engine is pinged; once a call failed to reach it, the next probe pings and names it.
// The real engine behind a relay that counts the pings and can be cut.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import { ANSWERED_RECENTLY_MS } from '../../../plugins/docker/engine/connect.js';
import { requireEnv } from '../../helpers/env.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { testPrefix } from '../../helpers/images.js';

t.test('readiness takes a recent answer, pings an idle engine, and names one a call could not reach', { timeout: 120_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-readiness-'));
  let pings = 0;
  const open: Socket[] = [];
  const relay: Server = createServer((client) => {
    const upstream = connect(env.dockerSocket);
    open.push(client, upstream);
    client.on('data', (chunk: Buffer) => (pings += chunk.toString('latin1').match(/(?:^|\r\n)(?:GET|HEAD) \/(?:v[\d.]+\/)?_ping HTTP/g)?.length ?? 0));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  const socket = join(dir, 'engine.sock');
  await new Promise<void>((resolve) => relay.listen(socket, resolve));
  const cut = async () => {
    const closed = new Promise((resolve) => relay.close(resolve));
    for (const s of open) s.destroy();
    await closed;
  };
  t.teardown(async () => {
    if (relay.listening) await cut();
    await rm(dir, { recursive: true, force: true });
  });
  const tw = await createTidewatch({ logger: memoryLogger(), plugins: [{ plugin: dockerPlugin, options: { names: [`${testPrefix('readiness')}-.*`], host: [`unix://${socket}`] } }] });
  t.teardown(() => tw.close());

  await tw.targets();
  await tw.health.ready(5000);
  t.equal(pings, 0, 'ready on the discovery that just answered: no ping');

  await sleep(ANSWERED_RECENTLY_MS + 300);
  await tw.health.ready(5000);
  t.equal(pings, 1, 'idle longer than the window: pinged');
  await tw.health.ready(5000);
  t.equal(pings, 1, 'the ping itself is a recent answer');

  await cut();
  await t.rejects(tw.targets(), 'the discovery cannot reach the engine');
  await t.rejects(tw.health.ready(5000), { message: /docker: .*(ENOENT|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up)/ }, 'a call that failed since: pinged, and named as down');
});
