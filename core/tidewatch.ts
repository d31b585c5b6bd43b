// The engine plugins tap and embedders drive: `createTidewatch({ plugins })`, then `check()` or
// `update()`. It knows nothing of Docker, registries, Git or HTTP.
import { checkTargets, discoverAndSelect } from './check-run.js';
import { errorMessage, errors } from './errors.js';
import { makeEvent, type EventPayloads, type EventType } from './events.js';
import { Health } from './health.js';
import { RunHistory } from './history.js';
import { createHooks, type Hooks } from './hooks.js';
import { UpdateLock, type Release } from './lock.js';
import { silentLogger } from './logger.js';
import { validatePluginOptions, type PluginUse, type TidewatchPlugin } from './plugin.js';
import { createRunContext } from './run-context.js';
import type { CheckReport, Logger, RunContext, RunKind, RunRequest, Target, UpdateReport } from './types.js';
import { runUpdate } from './update-run.js';

export interface TidewatchOptions {
  /** Plugins in tap order: bare plugins or `{ plugin, options }`. */
  readonly plugins?: readonly (TidewatchPlugin<object> | PluginUse<object>)[];
  readonly logger?: Logger;
  /** Staleness checks in flight at once (default 20). */
  readonly checkConcurrency?: number;
  /** Run summaries kept for history (default 500). */
  readonly historySize?: number;
}

/** What plugins receive in `apply(core, options)`. */
export interface TidewatchCore {
  readonly hooks: Hooks;
  readonly logger: Logger;
  readonly lock: UpdateLock;
  readonly history: RunHistory;
  readonly health: Health;
  emit<K extends EventType>(type: K, data: EventPayloads[K]): void;
  /** Discovery and selection only, no staleness (GET /v1/containers). */
  targets(request?: RunRequest): Promise<Target[]>;
  /** Staleness of every selected target; never pulls, never gates, takes no lock. */
  check(request?: RunRequest): Promise<CheckReport>;
  /**
   * An update run under the update lock: a full run is refused with TW_ERR_BUSY while another
   * holds it; a targeted run waits (abortable through `request.signal`).
   */
  update(request?: RunRequest): Promise<UpdateReport>;
  /** Registers work to do on `close()` (servers, timers), run in reverse order. */
  onClose(handler: () => Promise<void> | void): void;
}

export interface Tidewatch extends TidewatchCore {
  /** Plugins applied, in order. */
  readonly plugins: readonly string[];
  close(): Promise<void>;
}

function isPluginUse(entry: TidewatchPlugin<object> | PluginUse<object>): entry is PluginUse<object> {
  return 'plugin' in entry && typeof (entry as PluginUse<object>).plugin === 'object';
}

class TidewatchEngine implements Tidewatch {
  readonly hooks: Hooks;
  readonly logger: Logger;
  readonly lock = new UpdateLock();
  readonly history: RunHistory;
  readonly health = new Health();
  readonly plugins: string[] = [];
  readonly #concurrency: number;
  readonly #closers: (() => Promise<void> | void)[] = [];

  constructor(options: TidewatchOptions) {
    this.logger = options.logger ?? silentLogger;
    this.hooks = createHooks(this.logger);
    this.history = new RunHistory(options.historySize);
    this.#concurrency = options.checkConcurrency ?? 20;
  }

  emit<K extends EventType>(type: K, data: EventPayloads[K]): void {
    this.hooks.event.call(makeEvent(type, data));
  }

  onClose(handler: () => Promise<void> | void): void {
    this.#closers.push(handler);
  }

  async close(): Promise<void> {
    for (const handler of this.#closers.splice(0).reverse()) {
      try {
        await handler();
      } catch (err) {
        this.logger.error({ err: errorMessage(err) }, 'error while closing');
      }
    }
  }

  async targets(request: RunRequest = {}): Promise<Target[]> {
    return discoverAndSelect(this.hooks, createRunContext('list', request, this.logger));
  }

  async check(request: RunRequest = {}): Promise<CheckReport> {
    const ctx = createRunContext('check', request, this.logger);
    return this.#observed(ctx, 'check', async () => {
      const targets = await discoverAndSelect(this.hooks, ctx);
      const results = await checkTargets(this.hooks, targets, ctx, this.#concurrency);
      const report: CheckReport = { runId: ctx.runId, results, startedAt: ctx.startedAt, finishedAt: new Date() };
      const summary = {
        scanned: results.length,
        updated: 0,
        failed: results.filter((r) => r.staleness.error).length,
        restarted: 0,
        skipped: 0,
      };
      return { report, summary };
    });
  }

  async update(request: RunRequest = {}): Promise<UpdateReport> {
    const ctx = createRunContext('update', request, this.logger);
    let release: Release | undefined;
    if (ctx.targeted) {
      release = await this.lock.acquire(ctx.signal);
    } else {
      release = this.lock.tryAcquire();
      if (!release) throw errors.busy();
    }
    try {
      return await this.#observed(ctx, 'update', async () => {
        const deps = { hooks: this.hooks, concurrency: this.#concurrency, emit: this.emit.bind(this) };
        const report = await runUpdate(deps, ctx);
        return { report, summary: report.summary };
      });
    } finally {
      release();
    }
  }

  /** Wraps a run with its scan events, its history entry and its log lines. */
  async #observed<R>(
    ctx: RunContext,
    kind: RunKind,
    body: () => Promise<{ report: R; summary: UpdateReport['summary'] }>,
  ): Promise<R> {
    this.emit('scan_started', { run_id: ctx.runId, kind, targeted: ctx.targeted });
    ctx.logger.info({ targeted: ctx.targeted }, `${kind} run started`);
    const record = (summary: UpdateReport['summary'], error?: string) =>
      this.history.add({
        runId: ctx.runId,
        kind,
        targeted: ctx.targeted,
        startedAt: ctx.startedAt,
        finishedAt: new Date(),
        summary,
        ...(error === undefined ? {} : { error }),
      });
    try {
      const { report, summary } = await body();
      const data =
        kind === 'check'
          ? { run_id: ctx.runId, scanned: summary.scanned, updated: 0, failed: summary.failed }
          : { run_id: ctx.runId, ...summary };
      this.emit('scan_completed', data);
      record(summary);
      ctx.logger.info(summary, `${kind} run completed`);
      return report;
    } catch (err) {
      const reason = ctx.signal.aborted && ctx.signal.reason instanceof Error ? ctx.signal.reason : err;
      const error = errorMessage(reason);
      this.emit('scan_failed', { run_id: ctx.runId, error });
      record({ scanned: 0, updated: 0, failed: 0, restarted: 0, skipped: 0 }, error);
      ctx.logger.error({ err: error }, `${kind} run failed`);
      throw reason;
    }
  }

  async use(entry: TidewatchPlugin<object> | PluginUse<object>): Promise<void> {
    const { plugin, options } = isPluginUse(entry) ? entry : { plugin: entry, options: undefined };
    const validated = validatePluginOptions(plugin, options);
    try {
      await plugin.apply(this, validated);
    } catch (err) {
      throw errors.pluginFailed(plugin.name, 'apply', errorMessage(err));
    }
    this.plugins.push(plugin.name);
  }
}

export async function createTidewatch(options: TidewatchOptions = {}): Promise<Tidewatch> {
  const engine = new TidewatchEngine(options);
  for (const entry of options.plugins ?? []) await engine.use(entry);
  return engine;
}
