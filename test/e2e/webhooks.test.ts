// Issue 25 through the built binary against the real engine and a real CNCF Distribution registry (Debian's
// docker-registry 2.8, started here with `notifications.endpoints` pointing at Tidewatch, which sends
// application/vnd.docker.distribution.events.v1+json). Periodic polls are off (the update endpoint takes
// runs over, docs/http-api-contract.md §1): every run seen here was started by a webhook.
import { EventSource } from 'eventsource';
import t, { type Test } from 'tap';
import { waitFor } from '../helpers/env.js';
import { pullImage, pushImage, runContainer, type PushedImage } from '../helpers/images.js';
import { freePort, startNotifyingRegistry, type NotifyingRegistry } from '../helpers/notifying-registry.js';
import { QUICK_STOP_CMD, scenario, type Scenario } from '../helpers/scenarios.js';
import { startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-webhook-token-0123456789';
const MAIN = 'e2e-webhook-main-token-0123';
const EVENTS = 'e2e-webhook-events-token-0123';

interface Streamed {
  type: string;
  data: Record<string, unknown>;
}

function subscribe(service: RunningService): { events: Streamed[]; close(): void } {
  const events: Streamed[] = [];
  // last_event_id=0 replays what the service emitted before the stream opened: a registry retrying as soon as
  // the service listens may have its run finished before this subscription is.
  const source = new EventSource(`${service.url}/v1/events?access_token=${EVENTS}&last_event_id=0`);
  for (const type of ['scan_started', 'scan_completed', 'scan_failed', 'update_started', 'update_completed', 'update_failed']) {
    source.addEventListener(type, (message) => events.push(JSON.parse(message.data) as Streamed));
  }
  return { events, close: () => source.close() };
}

async function tidewatch(t: Test, s: Scenario, port: number, token: string): Promise<RunningService> {
  const service = await startService([
    '--host', s.env.dockerHost,
    '--http-api-port', String(port),
    '--http-api-endpoints', 'hooks,update,events',
    '--http-api-token', MAIN,
    '--http-api-events-token', EVENTS,
    '--webhook', `reg=distribution,token=${token},action=update`,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

async function registryFor(t: Test, port: number): Promise<NotifyingRegistry> {
  const registry = await startNotifyingRegistry({ url: `http://127.0.0.1:${port}/v1/hooks/reg`, token: TOKEN, timeout: '2s', threshold: 1, backoff: '1s' });
  t.teardown(() => registry.stop());
  return registry;
}

async function push(s: Scenario, registry: string, marker: string, index = false): Promise<PushedImage> {
  return pushImage({ registry, repo: `${s.prefix}/app`, marker: `${s.prefix} ${marker}`, cmd: QUICK_STOP_CMD, ...(index ? { index: true } : {}) });
}

async function runApp(s: Scenario, image: PushedImage): Promise<string> {
  await pullImage(s.engine, image.ref);
  const name = `${s.prefix}-app`;
  await runContainer(s.engine, { name, image: image.ref });
  return name;
}

const settle = async (events: Streamed[], ms = 2500): Promise<void> => {
  // Quiet: no event for `ms` (the first push's notifications have been handled).
  let seen = -1;
  while (seen !== events.length) {
    seen = events.length;
    await new Promise((r) => setTimeout(r, ms));
  }
};

function noPolls(t: Test, service: RunningService, events: Streamed[]): void {
  t.notOk(service.logs.some((l) => l['msg'] === 'scheduled updates enabled'), 'periodic polls are off');
  const started = events.filter((e) => e.type === 'scan_started');
  t.ok(started.length > 0 && started.every((e) => e.data['trigger'] === 'webhook:reg'), 'every run was started by the webhook');
  t.notMatch(JSON.stringify(service.logs), new RegExp(TOKEN), 'the token in no log line');
}

/** Tidewatch with the right token, its event stream, the notifying registry, and the app running v1. */
async function watched(t: Test, label: string, index = false) {
  const s = await scenario(t, label);
  if (!s) return undefined;
  const port = await freePort();
  const service = await tidewatch(t, s, port, TOKEN);
  const stream = subscribe(service);
  t.teardown(() => stream.close());
  const registry = await registryFor(t, port);
  const name = await runApp(s, await push(s, registry.registry, 'v1', index));
  await settle(stream.events);
  return { s, service, stream, registry, name };
}

t.test('a push of a new image to a watched tag updates the container', async (t) => {
  const w = await watched(t, 'e2e-hooks-push');
  if (!w) return;
  const { s, service, stream, registry, name } = w;
  const v2 = await push(s, registry.registry, 'v2');
  await waitFor(() => stream.events.find((e) => e.type === 'update_completed' && e.data['container'] === name), 30_000);
  const info = await s.engine.getContainer(name).inspect();
  t.equal(info.Image, v2.configDigest, 'the container runs the pushed image');
  const completed = stream.events.find((e) => e.type === 'update_completed');
  t.equal(completed?.data['trigger'], 'webhook:reg', 'update_completed names the trigger');
  t.ok(service.logs.some((l) => l['msg'] === 'webhook received' && l['result'] === 'accepted'), 'the registry delivered');
  noPolls(t, service, stream.events);
});

t.test('a multi-platform push and its .sig tag give exactly one run', async (t) => {
  const w = await watched(t, 'e2e-hooks-burst', true);
  if (!w) return;
  const { s, service, stream, registry, name } = w;
  const before = stream.events.filter((e) => e.type === 'scan_started').length;
  const v2 = await push(s, registry.registry, 'v2', true);
  // A cosign-style signature: a manifest under the tag sha256-<hex of the index digest>.sig.
  await pushImage({ registry: registry.registry, repo: `${s.prefix}/app`, tag: `${v2.digest.replace(':', '-')}.sig`, marker: `${s.prefix} signature` });
  await waitFor(() => stream.events.find((e) => e.type === 'update_completed' && e.data['container'] === name), 30_000);
  await settle(stream.events);
  const runs = stream.events.filter((e) => e.type === 'scan_started').slice(before);
  t.equal(runs.length, 1, 'one run for the index, its platform manifests and the signature');
  t.equal(stream.events.filter((e) => e.type === 'update_completed').length, 1);
  const received = service.logs.filter((l) => l['msg'] === 'webhook received');
  t.ok(received.length >= 3, `the registry sent several notifications (${received.length})`);
  noPolls(t, service, stream.events);
});

t.test("a wrong token gets 401; the registry's retries are delivered once the token is fixed", async (t) => {
  const s = await scenario(t, 'e2e-hooks-retry');
  if (!s) return;
  const port = await freePort();
  const wrong = await tidewatch(t, s, port, 'not-the-registry-token-9876');
  const registry = await registryFor(t, port);
  const name = await runApp(s, await push(s, registry.registry, 'v1'));
  const v2 = await push(s, registry.registry, 'v2');
  await waitFor(() => wrong.logs.filter((l) => l['msg'] === 'webhook authentication failed').length >= 2, 20_000);
  const failed = wrong.logs.find((l) => l['msg'] === 'webhook authentication failed');
  t.match(failed, { receiver: 'reg', ip: '127.0.0.1', reason: 'invalid token' }, '401 logged with the client IP');
  t.notMatch(JSON.stringify(wrong.logs), new RegExp(`${TOKEN}|not-the-registry-token`), 'neither token logged');
  t.ok(registry.app.some((l) => /retrying|failure|401/i.test(l)), 'the registry saw the failure and keeps retrying');
  await wrong.stop('SIGTERM');

  const fixed = await tidewatch(t, s, port, TOKEN);
  const stream = subscribe(fixed);
  t.teardown(() => stream.close());
  try {
    await waitFor(() => stream.events.find((e) => e.type === 'update_completed' && e.data['container'] === name), 45_000);
  } catch (err) {
    // What each side saw, for whoever reads a failure of this test.
    t.comment(`service log:\n${fixed.logs.slice(-40).map((l) => JSON.stringify(l)).join('\n')}`);
    t.comment(`registry log:\n${registry.app.slice(-20).join('\n')}`);
    t.comment(`events: ${JSON.stringify(stream.events)}`);
    throw err;
  }
  t.equal((await s.engine.getContainer(name).inspect()).Image, v2.configDigest, 'updated by the retried notifications');
  noPolls(t, fixed, stream.events);
});


