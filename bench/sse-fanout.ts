// Benchmark (not a test): SSE fan-out of the HTTP API (docs/interface.md §6). The service (a real core with
// the http-api plugin) runs in a child process so that its memory is its own; this process opens 1000
// subscribers on GET /v1/events, the child emits a burst of 10 000 events through the core's event
// bus, and every subscriber must receive every event, in order. Prints the delivery latency (emit in
// the service → frame parsed by the subscriber, both clocks are this machine's) and the service's
// memory: before subscribers, with subscribers, peak RSS, and after the burst.
//
//   node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/sse-fanout.ts \
//     [--subscribers 1000] [--events 10000] [--yield-every 0]
//
// --yield-every N lets the service's event loop turn every N events (0: the whole burst in one turn,
// the way a run's synchronous emits arrive).
import { fork, type ChildProcess } from 'node:child_process';
import { get, Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createTidewatch, type Tidewatch } from '../core/index.js';
import { createHttpApiPlugin } from '../plugins/http-api/index.js';

const TOKEN = 'bench-events-token';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

const now = (): number => performance.timeOrigin + performance.now();

interface Memory {
  rssMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
}

function memory(): Memory {
  const m = process.memoryUsage();
  const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
  return { rssMiB: mib(m.rss), heapUsedMiB: mib(m.heapUsed), externalMiB: mib(m.external + m.arrayBuffers) };
}

type ToService = { type: 'memory' } | { type: 'burst'; events: number; yieldEvery: number } | { type: 'stop' };
type FromService =
  | { type: 'ready'; url: string; memory: Memory }
  | { type: 'memory'; memory: Memory }
  | { type: 'burst-emitted'; emitMs: number }
  | { type: 'final'; memory: Memory; peakRssMiB: number };

// ---------------------------------------------------------------- the service (child process)

async function service(): Promise<void> {
  const send = (message: FromService) => process.send?.(message);
  const api = createHttpApiPlugin();
  const tw: Tidewatch = await createTidewatch({
    plugins: [
      {
        plugin: api,
        options: {
          endpoints: ['events'],
          eventsToken: TOKEN,
          host: '127.0.0.1',
          port: 0,
          rateLimit: 0,
          eventsMaxSubscribers: 100_000,
        },
      },
    ],
  });
  global.gc?.();
  send({ type: 'ready', url: api.address?.url ?? '', memory: memory() });
  process.on('message', (message: ToService) => {
    if (message.type === 'memory') {
      global.gc?.();
      send({ type: 'memory', memory: memory() });
    } else if (message.type === 'burst') {
      const started = now();
      let i = 0;
      const emitSome = () => {
        const stop = message.yieldEvery > 0 ? Math.min(message.events, i + message.yieldEvery) : message.events;
        for (; i < stop; i++) {
          // The emit time rides in the event; the subscriber subtracts it from its receive time.
          tw.emit('scan_failed', { run_id: `bench-${i}`, error: now().toFixed(3) });
        }
        if (i < message.events) setImmediate(emitSome);
        else send({ type: 'burst-emitted', emitMs: now() - started });
      };
      emitSome();
    } else if (message.type === 'stop') {
      send({ type: 'final', memory: memory(), peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) });
      void tw.close().then(() => process.exit(0));
    }
  });
}

// ---------------------------------------------------------------- the subscribers (this process)

interface Subscriber {
  count: number;
  lastId: number;
  inOrder: boolean;
  gotRetry: boolean;
}

function subscribe(url: string, agent: Agent, latencies: Float64Array, events: number, index: number): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const state: Subscriber = { count: 0, lastId: 0, inOrder: true, gotRetry: false };
    const req = get(`${url}/v1/events`, { agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscriber ${index}: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk: string) => {
        const receivedAt = now();
        rest += chunk;
        let start = 0;
        let end = rest.indexOf('\n\n');
        while (end !== -1) {
          if (rest.startsWith('id: ', start)) {
            const id = Number(rest.slice(start + 4, rest.indexOf('\n', start)));
            const at = rest.indexOf('"error":"', start) + 9;
            const sentAt = Number(rest.slice(at, rest.indexOf('"', at)));
            if (id !== state.lastId + 1 && state.count > 0) state.inOrder = false;
            state.lastId = id;
            if (state.count < events) latencies[index * events + state.count] = receivedAt - sentAt;
            state.count++;
          } else if (rest.startsWith('retry: ', start)) {
            state.gotRetry = true;
            resolve(state);
          }
          start = end + 2;
          end = rest.indexOf('\n\n', start);
        }
        rest = rest.slice(start);
      });
    });
    req.on('error', reject);
  });
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function main(): Promise<void> {
  const subscribers = arg('--subscribers', 1000);
  const events = arg('--events', 10_000);
  const yieldEvery = arg('--yield-every', 0);
  const child: ChildProcess = fork(process.argv[1] as string, ['--service'], {
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends FromService['type']>(type: T): Promise<Extract<FromService, { type: T }>> =>
    new Promise((resolve) => {
      const onMessage = (message: FromService) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        resolve(message as Extract<FromService, { type: T }>);
      };
      child.on('message', onMessage);
    });

  const ready = await next('ready');
  console.log(`service at ${ready.url}; memory before subscribers: ${JSON.stringify(ready.memory)}`);

  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const latencies = new Float64Array(subscribers * events).fill(Number.NaN);
  const states: Subscriber[] = [];
  const connectStarted = now();
  for (let i = 0; i < subscribers; i += 100) {
    const batch = [];
    for (let j = i; j < Math.min(subscribers, i + 100); j++) batch.push(subscribe(ready.url, agent, latencies, events, j));
    states.push(...(await Promise.all(batch)));
  }
  console.log(`${subscribers} subscribers connected in ${(now() - connectStarted).toFixed(0)} ms`);
  child.send({ type: 'memory' } satisfies ToService);
  const connected = await next('memory');
  console.log(`memory with subscribers: ${JSON.stringify(connected.memory)}`);

  const burstStarted = now();
  child.send({ type: 'burst', events, yieldEvery } satisfies ToService);
  const emitted = await next('burst-emitted');
  const deadline = Date.now() + 300_000;
  while (states.some((s) => s.count < events) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const deliveredMs = now() - burstStarted;
  child.send({ type: 'memory' } satisfies ToService);
  const after = await next('memory');
  child.send({ type: 'stop' } satisfies ToService);
  const final = await next('final');

  const complete = states.filter((s) => s.count === events).length;
  const ordered = states.filter((s) => s.inOrder && s.lastId - (states[0]?.lastId ?? 0) === 0).length;
  const sorted = latencies.filter((v) => !Number.isNaN(v)).sort();
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log('');
  console.log(`subscribers                 ${subscribers}`);
  console.log(`events in the burst         ${events} (${yieldEvery > 0 ? `yielding every ${yieldEvery}` : 'one synchronous burst'})`);
  console.log(`emit time in the service    ${ms(emitted.emitMs)}`);
  console.log(`all delivered after         ${ms(deliveredMs)}`);
  console.log(`frames delivered            ${sorted.length} of ${subscribers * events}`);
  console.log(`subscribers complete        ${complete} / ${subscribers}`);
  console.log(`subscribers in order        ${ordered} / ${subscribers} (ids consecutive, same last id)`);
  console.log(`delivery latency p50        ${ms(percentile(sorted, 50))}`);
  console.log(`delivery latency p99        ${ms(percentile(sorted, 99))}`);
  console.log(`delivery latency max        ${ms(sorted[sorted.length - 1] ?? Number.NaN)}`);
  console.log(`service memory before       rss ${ready.memory.rssMiB} MiB, heap ${ready.memory.heapUsedMiB} MiB`);
  console.log(`service memory subscribed   rss ${connected.memory.rssMiB} MiB, heap ${connected.memory.heapUsedMiB} MiB`);
  console.log(`service memory peak         rss ${final.peakRssMiB} MiB`);
  console.log(`service memory after burst  rss ${after.memory.rssMiB} MiB, heap ${after.memory.heapUsedMiB} MiB`);
  // The baseline includes the TypeScript loader this script runs under; the deltas are the API's cost.
  const delta = (v: number) => `${(v - ready.memory.rssMiB).toFixed(1)} MiB`;
  console.log(`rss over the baseline       subscribed +${delta(connected.memory.rssMiB)}, peak +${delta(final.peakRssMiB)}`);
  agent.destroy();
  const ok = complete === subscribers && ordered === subscribers;
  console.log(ok ? 'OK: every subscriber received every event in order' : 'FAILED: some subscriber missed events or got them out of order');
  process.exit(ok ? 0 : 1);
}

if (process.argv.includes('--service')) {
  void service();
} else {
  void main();
}
