// A real core with stub taps (targets by hand), the real webhooks plugin and the real HTTP API on an
// ephemeral loopback port: what a webhook request turns into is observed on the event bus.
import { createTidewatch, type Target, type Tidewatch, type TidewatchCore, type TidewatchEvent } from '../../../../core/index.js';
import { createHttpApiPlugin, type HttpApiOptions } from '../../../../plugins/http-api/index.js';
import { webhooksPlugin, type WebhookPluginOptions } from '../../../../plugins/webhooks/index.js';
import { memoryLogger, sleep, stubPlugin, waitFor, type LogLine, type StubWorld } from '../../http-api/helpers/harness.js';

export const MAIN_TOKEN = 'main-token-for-webhook-tests';

export interface HookHarness {
  tw: Tidewatch;
  url: string;
  logs: LogLine[];
  events: TidewatchEvent[];
  world: StubWorld;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  /** scan_started events so far (the runs webhooks started). */
  runs(): { run_id: string; kind: string; trigger?: string }[];
  /** Names of the targets each run checked, from its report. */
  checked(runId: string): string[];
  close(): Promise<void>;
}

export async function startHooks(
  webhooks: WebhookPluginOptions,
  targets: Target[],
  api: HttpApiOptions = {},
): Promise<HookHarness> {
  const world: StubWorld = {
    targets,
    staleness: new Map(),
    apply: async (plan) => ({ target: plan.target, outcome: 'updated', newImageId: 'sha256:new' }),
    ready: async () => undefined,
  };
  const http = createHttpApiPlugin();
  const logger = memoryLogger();
  const events: TidewatchEvent[] = [];
  const recorder = { name: 'recorder', apply: (core: TidewatchCore) => core.hooks.event.tap('recorder', (e) => void events.push(e)) };
  const tw = await createTidewatch({
    logger,
    plugins: [
      recorder,
      stubPlugin(world),
      { plugin: webhooksPlugin, options: { debounceMs: 100, ...webhooks } },
      {
        plugin: http,
        options: { endpoints: ['hooks', 'metrics', 'swagger'], token: MAIN_TOKEN, host: '127.0.0.1', port: 0, rateLimit: 0, ...api },
      },
    ],
  });
  const url = http.address?.url as string;
  return {
    tw,
    url,
    logs: logger.lines,
    events,
    world,
    async post(path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
    },
    runs: () => events.flatMap((e) => (e.type === 'scan_started' ? [e.data] : [])),
    checked: (runId) =>
      events.flatMap((e) => {
        if (e.type !== 'run_report' || e.data.run_id !== runId) return [];
        const results = e.data.kind === 'check' ? e.data.report.results : e.data.report.checks;
        return results.map((r) => r.target.name);
      }),
    close: () => tw.close(),
  };
}

export { sleep, waitFor };
