// Threat model row "agent channel" (docs/security.md#threat-model, docs/fleet.md): whoever can reach the
// controller's API port can dial the tunnel, and an agent forwards what the controller sends to an engine that
// is root on its host. A hostile client speaking the protocol is refused and logged without secrets: with a
// spent token, with an enrolled name and another key, with a signature over the wrong challenge, from a
// browser origin, with an oversized message. A controller asking an agent for a call outside the allowlist of
// its mode gets 403 (logged by the agent, reported to the controller), and a path walking out of its section is
// refused the same way. Fails when the key proof, the one-time token or the allowlist is weakened.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import WebSocket, { WebSocketServer } from 'ws';
import { enrolToken, startAgent, waitForAgent } from '../helpers/agents.js';
import { requireEnv, waitFor } from '../helpers/env.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Mux } from '../../plugins/agents/mux.js';
import { signedText } from '../../plugins/agents/protocol.js';

const TOKEN = 'security-agent-channel-token-0123';

interface Key {
  readonly publicKey: string;
  readonly privateKey: KeyObject;
}

function newKey(): Key {
  const pair = generateKeyPairSync('ed25519');
  return { publicKey: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey: pair.privateKey };
}

/** One handshake as a hostile (or honest) agent: what the controller answered and how it closed. */
async function dial(
  controller: RunningService,
  hello: { name: string; key: Key; token?: string; signWith?: Key; nonce?: string },
): Promise<{ answer?: Record<string, unknown>; code: number }> {
  const ws = new WebSocket(`${controller.url.replace(/^http/, 'ws')}/v1/agents/connect`);
  ws.on('error', () => undefined);
  let answer: Record<string, unknown> | undefined;
  ws.on('message', (data, binary) => {
    // Once welcomed, the controller opens streams to the engine at once: frames, not for this test.
    if (binary) return;
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    if (message['type'] === 'challenge') {
      const nonce = hello.nonce ?? String(message['nonce']);
      const signature = sign(null, signedText(nonce, hello.name, hello.key.publicKey), (hello.signWith ?? hello.key).privateKey).toString('base64');
      ws.send(JSON.stringify({ type: 'hello', name: hello.name, public_key: hello.key.publicKey, signature, stage: 1, version: 'test', ...(hello.token ? { enrol_token: hello.token } : {}) }));
    } else {
      answer = message;
      if (message['type'] === 'welcome') ws.close(1000);
    }
  });
  const [code] = (await once(ws, 'close')) as [number];
  return { answer, code };
}

const refusals = (controller: RunningService) => controller.logs.filter((l) => l['msg'] === 'refused an agent');

t.test('the controller refuses a spent token, a stolen name, a wrong signature, a browser and an oversized message', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const controller = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'agents', '--http-api-token', TOKEN, '--log-level', 'debug']);
  t.teardown(() => controller.stop('SIGKILL'));

  const honest = newKey();
  const token = await enrolToken(controller.url, TOKEN);
  const first = await dial(controller, { name: 'honest', key: honest, token });
  t.equal(first.answer?.['type'], 'welcome', 'an honest agent with a fresh token is enrolled');

  const spent = await dial(controller, { name: 'second', key: newKey(), token });
  t.match(spent, { answer: { type: 'refused', reason: 'enrol token already spent' }, code: 4003 }, 'a spent token is refused');

  const stolen = await dial(controller, { name: 'honest', key: newKey(), token: await enrolToken(controller.url, TOKEN) });
  t.match(stolen, { answer: { type: 'refused', reason: /enrolled with another key/ }, code: 4003 }, 'the same name with another key is refused, token or not');

  const forged = newKey();
  const wrongSigner = await dial(controller, { name: 'honest', key: honest, signWith: forged });
  t.match(wrongSigner, { answer: { type: 'refused', reason: /not signed by the enrolled key/ } }, 'presenting the enrolled public key without its private key is refused');

  const replayed = await dial(controller, { name: 'honest', key: honest, nonce: 'an-old-challenge' });
  t.match(replayed, { answer: { type: 'refused' } }, 'a signature over another challenge (a replay) is refused');

  const again = await dial(controller, { name: 'honest', key: honest });
  t.equal(again.answer?.['type'], 'welcome', 'the enrolled key alone is enough later, no token');

  const browser = await new Promise<number>((resolve, reject) => {
    const request = http.request(`${controller.url}/v1/agents/connect`, {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', origin: 'https://evil.example' },
    });
    request.on('response', (res) => resolve(res.statusCode ?? 0));
    request.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
  t.equal(browser, 403, 'a browser origin never opens a tunnel');

  const big = new WebSocket(`${controller.url.replace(/^http/, 'ws')}/v1/agents/connect`);
  big.on('error', () => undefined);
  await once(big, 'message');
  big.send('x'.repeat(200 * 1024));
  const [bigCode] = (await once(big, 'close')) as [number];
  t.equal(bigCode, 1009, 'a message above the limit closes the connection (1009)');

  const logged = refusals(controller);
  t.ok(logged.length >= 4, `each refusal is logged (${logged.length})`);
  t.ok(logged.every((l) => typeof l['ip'] === 'string' && typeof l['reason'] === 'string'), 'with the address and why');
  const all = JSON.stringify(controller.logs);
  t.notOk(all.includes(token), 'no log line carries an enrol token');
  t.notOk(all.includes(honest.publicKey), 'nor a key');
});

t.test('an agent forwards only the calls of the controller\'s mode; anything else is 403, logged and reported', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  // A controller played by the test: it asks the real agent for calls its announced mode does not allow.
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  t.teardown(() => server.close());
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const reported: string[] = [];
  const connected = new Promise<Mux>((resolve) => {
    server.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'challenge', nonce: 'bm9uY2U', version: 'test' }));
      const mux = new Mux((frame, done) => ws.send(frame, { binary: true }, (err) => done(err ?? undefined)));
      ws.on('message', (data, binary) => {
        if (binary) {
          mux.receive(Buffer.from(data as Buffer));
          return;
        }
        const message = JSON.parse(String(data)) as Record<string, unknown>;
        if (message['type'] === 'hello') {
          ws.send(JSON.stringify({ type: 'welcome', calls: ['check'] }));
          resolve(mux);
        } else if (message['type'] === 'refused-call') reported.push(`${String(message['method'])} ${String(message['path'])}`);
      });
    });
  });
  const agent = startAgent({ controller: `ws://127.0.0.1:${port}`, name: 'probe', host: env.dockerHost, token: 'twa_unused' });
  t.teardown(() => agent.stop('SIGKILL'));
  const mux = await connected;

  const ask = async (method: string, path: string): Promise<number> => {
    const stream = mux.open();
    stream.write(`${method} ${path} HTTP/1.1\r\nHost: docker\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    let text = '';
    stream.on('data', (d: Buffer) => (text += d.toString()));
    await once(stream, 'end');
    stream.destroy();
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  };
  t.equal(await ask('GET', '/_ping'), 200, 'a call of the check mode reaches the engine');
  t.equal(await ask('GET', '/v1.41/containers/json'), 200, 'with the API version prefix too');
  t.equal(await ask('POST', '/containers/create'), 403, 'an update call in check mode is refused');
  t.equal(await ask('DELETE', '/volumes/data'), 403, 'a call no mode has is refused');
  t.equal(await ask('GET', '/images/../volumes/json'), 403, 'a path walking out of /images is refused');
  t.equal(await ask('GET', '/images/%2e%2e/volumes/json'), 403, 'encoded too');
  t.equal(await ask('POST', '/containers/abc/attach?stream=1'), 403, 'attach (a hijacked stream) is refused');
  await waitFor(() => (reported.length >= 5 ? true : undefined), 5_000);
  t.ok(reported.includes('POST /containers/create'), `the refusals are reported to the controller: ${reported.join(', ')}`);
  // The agent's log lines come through its stdout pipe, which may trail the reports its tunnel carried.
  const logged = () => agent.logs.filter((l) => l['msg'] === "refused a call outside the allowlist of the controller's mode").length;
  await waitFor(() => (logged() >= 5 ? true : undefined), 5_000).catch(() => undefined);
  t.ok(logged() >= 5, 'and logged by the agent');
});

t.test('a revoked agent is cut off at once and refused from then on', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const controller = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'agents', '--http-api-token', TOKEN]);
  t.teardown(() => controller.stop('SIGKILL'));
  const url = controller.url.replace(/^http/, 'ws');
  const agent = startAgent({ controller: url, name: 'gone', host: env.dockerHost, token: await enrolToken(controller.url, TOKEN) });
  t.teardown(() => agent.stop('SIGKILL'));
  await waitForAgent(controller.url, TOKEN, 'gone', 'online');
  const res = await fetch(`${controller.url}/v1/agents/gone`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(res.status, 200);
  const started = Date.now();
  await waitFor(() => agent.logs.some((l) => l['msg'] === 'this agent was revoked by the controller') || undefined, 5_000);
  t.ok(Date.now() - started < 2_000, 'the tunnel closed at once');
  await waitFor(() => refusals(controller).some((l) => l['agent'] === 'gone') || undefined, 15_000);
  t.pass('the revoked key is refused at its next connection, and the refusal logged');
});
