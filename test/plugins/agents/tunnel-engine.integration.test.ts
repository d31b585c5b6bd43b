// The Engine client over an agent's tunnel (docs/fleet.md#what-crosses), against the private engine: the
// controller's Mux and the agent's (the agent mode's own forwarder, plugins/agents/mux.ts and
// server/agent/forward.ts) joined back to back in this process, without the WebSocket between them.
// Calls on the shared keep-alive agent reuse one stream; a call on a connection of its own (`agent: false`:
// the image event stream that keeps image facts between checks, docs/performance.md#image-facts-between-runs)
// opens a stream of the tunnel too, instead of dialling `docker` with net as Node's own `agent: false` does;
// and the agent's allowlist still answers a call outside the controller's mode on such a stream.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { transportOptions } from '../../../plugins/docker/engine/connect.js';
import { EngineClient } from '../../../plugins/docker/engine/client.js';
import { isSocketProxyRefusal } from '../../../plugins/docker/engine/transport.js';
import { ImageFactsCache } from '../../../plugins/docker/image/facts-cache.js';
import { FRAME, Mux, type MuxStream } from '../../../plugins/agents/mux.js';
import { createForwarder } from '../../../server/agent/forward.js';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { QUICK_STOP_CMD, scenario } from '../../helpers/scenarios.js';

const silent = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child() { return silent; } } as never;

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

t.test('the Engine client over a tunnel: streams reused, own connections through the tunnel, the allowlist kept', async (t) => {
  const s = await scenario(t, 'agent-tunnel-engine');
  if (!s) return;
  const { env, engine, prefix } = s;
  const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'tunnel', cmd: QUICK_STOP_CMD });
  await pullImage(engine, image.ref);
  const container = await runContainer(engine, { name: `${prefix}-web`, image: image.ref, cmd: QUICK_STOP_CMD });

  const refused: string[] = [];
  const forwarder = createForwarder(transportOptions({ host: env.dockerHost }), silent, (method, path) => refused.push(`${method} ${path}`));
  forwarder.setCalls(['check']);
  // Frames cross on a later turn, as they do over a socket.
  let agentDataFrames = 0;
  const agentSide: Mux = new Mux(
    (frame, done) => {
      if (frame[0] === FRAME.DATA) agentDataFrames++;
      setImmediate(() => controllerSide.receive(frame));
      done();
    },
    (stream) => forwarder.serve(stream),
  );
  const controllerSide: Mux = new Mux((frame, done) => {
    setImmediate(() => agentSide.receive(frame));
    done();
  });
  const opened: MuxStream[] = [];
  const client = new EngineClient('agent://t', {
    endpoint: {
      kind: 'tunnel',
      connect: () => {
        const stream = controllerSide.open();
        opened.push(stream);
        return stream;
      },
    },
  });
  const cache = new ImageFactsCache(client);
  t.teardown(() => {
    cache.close();
    controllerSide.close('test over');
    agentSide.close('test over');
    forwarder.close();
  });

  await t.test('calls one after another share one stream (keep-alive over the tunnel)', async (t) => {
    const before = opened.length;
    for (let i = 0; i < 5; i++) t.ok((await client.version()).ApiVersion, 'the engine answers through the tunnel');
    const listed = await client.listContainers({ all: true });
    t.ok(listed.some((c) => c.Id === container.id), 'the container is listed through the tunnel');
    t.equal(opened.length - before, 1, 'six calls in a row opened one stream');
  });

  await t.test('a chunked answer crosses in a frame per piece the engine sent, not one per write of Node\'s http server', async (t) => {
    // Chunked answers: Node writes each chunk's size, the chunk and its CRLF apart (5 frames or more each
    // without _writev); the engine sends these in one piece, or a few when the machine is busy.
    for (const call of [() => client.listContainers({ all: true }), () => client.info()]) {
      agentDataFrames = 0;
      await call();
      t.ok(agentDataFrames >= 1 && agentDataFrames <= 3, `an answer crossed in ${agentDataFrames} DATA frames`);
    }
  });

  await t.test('the image event stream, a connection of its own, goes through the tunnel and reports a tag', async (t) => {
    const before = opened.length;
    // The engine sends the answer's headers with its first event: the tag below, from a second ahead so that
    // nothing earlier is replayed.
    await sleep(1100);
    const answer = client.imageEvents(Math.floor(Date.now() / 1000) + 1);
    await until(() => opened.length - before === 1, 'the stream of its own was opened');
    await sleep(1500);
    await engine.getImage(image.ref).tag({ repo: `${env.registry}/${prefix}/app`, tag: 'tunnel-tagged' });
    const events = await answer;
    const seen: string[] = [];
    events.on('data', (chunk: Buffer) => seen.push(chunk.toString('utf8')));
    await until(() => seen.join('').includes('tunnel-tagged'), 'the tag event crossed the tunnel');
    t.ok(seen.join('').includes('"Action":"tag"'), 'the engine reported the tag through the tunnel');
    t.equal(opened.length - before, 1, 'the event stream took one stream of the tunnel');
    events.destroy();
  });

  await t.test('the image facts cache goes live over the tunnel', async (t) => {
    // The stream replays the last minute, whose tag above makes the engine answer at once.
    cache.watch();
    await until(() => cache.live, 'the cache went live');
    t.ok(cache.live, 'image facts are kept between discoveries of an agent\'s engine');
  });

  await t.test('a call outside the mode on a connection of its own is refused by the agent', async (t) => {
    const err = await client.getArchive(container.id, '/etc/hostname').then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(isSocketProxyRefusal(err), 'the agent answered 403 and the client reads it as a proxy refusal');
    t.same(refused, ['GET /containers/{id}/archive'], 'the agent reported the refused call');
  });
});
