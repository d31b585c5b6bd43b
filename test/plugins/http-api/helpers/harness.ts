// A real core with stub taps (discover, checkStaleness, apply) and the real HTTP API on an ephemeral
// loopback port. The stubs stand in for Docker and registries, which the HTTP API never touches: it
// only calls the core, so a core fed with hand-built targets exercises every path of the plugin.
import {
  createTidewatch,
  type ApplyResult,
  type Logger,
  type RunContext,
  type Staleness,
  type Target,
  type Tidewatch,
  type TidewatchEvent,
  type TidewatchPlugin,
  type UpdatePlan,
} from '../../../../core/index.js';
import { ENDPOINTS, createHttpApiPlugin, type HttpApiOptions, type HttpApiPlugin } from '../../../../plugins/http-api/index.js';
import { fakeTarget } from '../../../helpers/targets.js';
import { memoryLogger, type LogLine } from '../../../helpers/memory-logger.js';
export { memoryLogger, type LogLine };

export const TOKEN = 'main-token-for-tests';
export const EVENTS_TOKEN = 'events-token-for-tests';
export const ALL_ENDPOINTS: NonNullable<HttpApiOptions['endpoints']> = [...ENDPOINTS];

export function target(name: string, overrides: Partial<Target> = {}): Target {
  return fakeTarget(name, { runtime: 'stub', ...overrides });
}

export interface StubWorld {
  targets: Target[];
  /** Staleness per target name; default: up to date from the registry. */
  staleness: Map<string, Staleness | (() => Promise<Staleness>)>;
  /** Called for every apply; default: updated. */
  apply: (plan: UpdatePlan, ctx: RunContext) => Promise<ApplyResult>;
  /** Called at the start of discovery (to block or fail a run). */
  beforeDiscover?: (ctx: RunContext) => Promise<void>;
  ready: () => Promise<void>;
}

export function stubPlugin(world: StubWorld): TidewatchPlugin<Record<string, never>> {
  return {
    name: 'stub',
    apply(core) {
      core.health.addReadinessCheck('stub-engine', () => world.ready());
      core.hooks.discover.tapPromise('stub', async (found, ctx) => {
        await world.beforeDiscover?.(ctx);
        return [...found, ...world.targets];
      });
      core.hooks.checkStaleness.tapPromise('stub', async (t) => {
        const s = world.staleness.get(t.name);
        if (typeof s === 'function') return s();
        return s ?? { source: 'registry', stale: false };
      });
      core.hooks.apply.tapPromise('stub', (plan, ctx) => world.apply(plan, ctx));
      core.health.markStarted();
    },
  };
}

export interface Harness {
  tw: Tidewatch;
  api: HttpApiPlugin;
  world: StubWorld;
  url: string;
  logs: LogLine[];
  close(): Promise<void>;
}

export async function startApi(
  options: HttpApiOptions = {},
  world: Partial<StubWorld> = {},
): Promise<Harness> {
  const fullWorld: StubWorld = {
    targets: [],
    staleness: new Map(),
    apply: async (plan) => ({ target: plan.target, outcome: 'updated', newImageId: 'sha256:new' }),
    ready: async () => undefined,
    ...world,
  };
  const api = createHttpApiPlugin();
  const logger = memoryLogger();
  const tw = await createTidewatch({
    logger,
    plugins: [
      stubPlugin(fullWorld),
      {
        plugin: api,
        options: {
          endpoints: ALL_ENDPOINTS,
          token: TOKEN,
          eventsToken: EVENTS_TOKEN,
          host: '127.0.0.1',
          port: 0,
          rateLimit: 0,
          ...options,
        },
      },
    ],
  });
  const address = api.address;
  if (!address) throw new Error('the HTTP API did not report its address');
  return { tw, api, world: fullWorld, url: address.url, logs: logger.lines, close: () => tw.close() };
}

export const bearer = (token = TOKEN): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Every event the core emits, in order (tapped before anything runs). */
export function recordEvents(tw: Tidewatch): TidewatchEvent[] {
  const events: TidewatchEvent[] = [];
  tw.hooks.event.tap('test-recorder', (event) => {
    events.push(event);
  });
  return events;
}

/** A promise and the function that resolves it, to hold a stub in the middle of a run. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds (or fails the test's expectation after `ms`). */
export async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await sleep(10);
  }
}
