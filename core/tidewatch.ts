// The engine plugins tap and embedders drive: `createTidewatch({ plugins })`, then `check()` or
// `update()`. It drives runs through the hooks and knows no runtime, registry or transport; what it does
// know of the watch split is said in watch-split.ts.
import { discoverAndCheck, discoverAndSelect } from './check-run.js';
import { ConfigError, errorMessage as messageOf, errors, isTidewatchError } from './errors.js';
import { actorField, makeEvent, type EventPayloads, type EventType } from './events.js';
import type { Findings } from './findings.js';
import { Health } from './health.js';
import { RunHistory } from './history.js';
import { createHooks, type Hooks } from './hooks.js';
import { UpdateLock, type Release } from './lock.js';
import { silentLogger } from './logger.js';
import { optionLabel, type OptionSpec, type OptionSpecs } from './option.js';
import { resolvePluginOptions, type PluginUse, type TidewatchPlugin } from './plugin.js';
import { ServiceRegistry, type Services } from './services.js';
import { WatchSplit, type WatchClaim } from './watch-split.js';
import { createRunContext } from './run-context.js';
import { decidePlan, type AppliedPlan, type Plan } from './plan.js';
import { applyDecidedPlan, tapPlannedAnswers } from './plan-apply.js';
import { PlanStore } from './plan-store.js';
import { selectRuntimeTargets, type SelectionAdjustments, type SelectionRules } from './selection-rules.js';
import { linkedSignal } from './linked-signal.js';
import type { CheckReport, ContextKind, Logger, RunContext, RunKind, RunRequest, Target, UpdateReport } from './types.js';
import { runUpdate, type UpdateRunDeps } from './update-run.js';

export interface TidewatchOptions {
  /** Plugins in tap order: bare plugins or `{ plugin, options }`. */
  readonly plugins?: readonly (TidewatchPlugin<object> | PluginUse<object>)[];
  readonly logger?: Logger;
  /** Staleness checks in flight at once (default 20). */
  readonly checkConcurrency?: number;
  /**
   * Dependency chains an update run replaces at once (default 1: one container at a time, Watchtower's
   * behaviour). Targets that share a chain are always replaced one by one in dependency order.
   */
  readonly updateConcurrency?: number;
  /** How long a decided plan may be applied, in milliseconds (default 15 minutes, `--plan-ttl`; docs/plans.md). */
  readonly planTtlMs?: number;
  /** Run summaries kept for history (default 500). */
  readonly historySize?: number;
  /** `once` when the process runs one update and exits (`--run-once`): runtimes skip self-update then. */
  readonly mode?: RunMode;
  /** How messages name an option (the server adds the variable: `--flag (TIDEWATCH_FLAG)`). */
  readonly optionLabel?: (spec: OptionSpec) => string;
}

export type RunMode = 'service' | 'once';

const DEFAULT_PLAN_TTL_MS = 15 * 60_000;

/** One plugin's declarations and the values it was applied with (what `/v1/config` shows). */
export interface AppliedOptions {
  readonly plugin: string;
  readonly specs: OptionSpecs;
  readonly values: Readonly<Record<string, unknown>>;
  /** False when the plugin's `enabled` said no: it was not applied. */
  readonly enabled: boolean;
}

/** What plugins receive in `apply(core, options)`. */
export interface TidewatchCore {
  readonly hooks: Hooks;
  readonly logger: Logger;
  readonly lock: UpdateLock;
  readonly history: RunHistory;
  readonly health: Health;
  /** Typed services plugins provide to one another (docs/plugins.md#services). */
  readonly services: Services;
  readonly mode: RunMode;
  /** Every plugin's options as applied, in plugin order. */
  readonly options: readonly AppliedOptions[];
  /** A plugin's own watch path: targets `claims` accepts are checked only by sources serving `path`. */
  claimWatchPath(path: string, claims: WatchClaim): void;
  /** The watch path of a target: `registry`, `git`, or a path a plugin claimed. */
  watchPath(target: Target): string;
  /**
   * Applies the shared selection options (SELECTION_OPTIONS, docs/configuration.md#shared-options) to `runtime`'s
   * targets at the `select` hook, under the runtime's name: every runtime that declares them hands their values here,
   * with what it adds (a scope it derives, services that must opt in, targets it never selects).
   */
  applySelection(runtime: string, rules: SelectionRules, how?: SelectionAdjustments): void;
  /**
   * Says that `by` starts update runs itself (the HTTP API's update endpoint): the server then runs no
   * periodic updates.
   */
  takeOverScheduling(by: string): void;
  /** `findings`: the candidate's (docs/plugins.md#findings), on the update events. */
  emit<K extends EventType>(type: K, data: EventPayloads[K], findings?: Findings): void;
  /** Discovery and selection only, no staleness (GET /v1/containers). */
  targets(request?: RunRequest): Promise<Target[]>;
  /** Staleness of every selected target; never pulls, never gates, takes no lock. */
  check(request?: RunRequest): Promise<CheckReport>;
  /**
   * An update run under the update lock: a full run is refused with TW_ERR_BUSY while another
   * holds it; a targeted run waits (abortable through `request.signal`).
   */
  update(request?: RunRequest): Promise<UpdateReport>;
  /**
   * Decides what an update run with these filters would do now — every stage and gate, dependency order —
   * and keeps it as a plan, applying nothing (docs/plans.md). Takes no lock.
   */
  plan(request?: RunRequest): Promise<Plan>;
  /**
   * Applies a plan exactly (those containers, those digests) as an update run under the update lock: like
   * `update()` with the plan's filters, a full plan is refused with TW_ERR_BUSY while another run holds it, a
   * targeted one waits. `request` gives the run's id, trigger and signal (its filters are the plan's).
   * Throws TW_ERR_PLAN_NOT_FOUND (unknown or expired) or TW_ERR_PLAN_APPLIED (applied already).
   */
  applyPlan(planId: string, request?: Omit<RunRequest, 'filters'>): Promise<AppliedPlan>;
  /** Registers work to do on `close()` (servers, timers), run in reverse order. */
  onClose(handler: () => Promise<void> | void): void;
}

export interface Tidewatch extends TidewatchCore {
  /**
   * The process is stopping: every run in progress (and any started later) is cancelled between targets,
   * and a runtime rolls back a replacement not yet proven (docs/stopping.md). Safe to call more than once.
   */
  stop(reason?: string): void;
  /** Plugins applied, in order. */
  readonly plugins: readonly string[];
  /** The plugin that took over starting update runs, if any. */
  readonly schedulingTakenOverBy: string | undefined;
  close(): Promise<void>;
}

interface Prepared {
  readonly plugin: TidewatchPlugin<object>;
  readonly values: object;
  readonly enabled: boolean;
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
  readonly services = new ServiceRegistry();
  readonly options: AppliedOptions[] = [];
  readonly mode: RunMode;
  schedulingTakenOverBy: string | undefined;
  readonly #split = new WatchSplit();
  readonly #stopping = new AbortController();
  readonly #label: (spec: OptionSpec) => string;
  readonly #concurrency: number;
  readonly #updateConcurrency: number;
  readonly #closers: (() => Promise<void> | void)[] = [];
  readonly #plans: PlanStore;

  constructor(options: TidewatchOptions) {
    this.logger = options.logger ?? silentLogger;
    this.hooks = createHooks(this.logger);
    this.history = new RunHistory(options.historySize);
    this.#concurrency = options.checkConcurrency ?? 20;
    this.#updateConcurrency = options.updateConcurrency ?? 1;
    this.mode = options.mode ?? 'service';
    this.#label = options.optionLabel ?? ((spec) => optionLabel(spec, ''));
    this.#plans = new PlanStore(options.planTtlMs ?? DEFAULT_PLAN_TTL_MS);
    tapPlannedAnswers(this.hooks);
  }

  claimWatchPath(path: string, claims: WatchClaim): void {
    this.#split.claim(path, claims);
  }

  watchPath(target: Target): string {
    return this.#split.pathOf(target);
  }

  applySelection(runtime: string, rules: SelectionRules, how: SelectionAdjustments = {}): void {
    this.hooks.select.tap(runtime, (targets, ctx) => selectRuntimeTargets(targets, ctx, runtime, rules, how));
  }

  stop(reason = 'Tidewatch is stopping'): void {
    if (!this.#stopping.signal.aborted) this.#stopping.abort(errors.aborted(reason));
  }

  /**
   * A run's context; its signal is the request's and the engine's stop together (linked-signal.ts says why
   * not `AbortSignal.any`). `done` must run when the run ends: it lets go of the sources. `preview`: a plan
   * being decided (docs/plans.md), which starts no pull and runs no hook.
   */
  #context(kind: ContextKind, request: RunRequest, preview = false): { ctx: RunContext; done: () => void } {
    const stop = this.#stopping.signal;
    const linked = request.signal ? linkedSignal([request.signal, stop]) : undefined;
    const ctx = createRunContext(kind, { ...request, signal: linked?.signal ?? stop }, this.logger, stop, preview);
    return { ctx, done: linked ? linked.unlink : () => undefined };
  }

  takeOverScheduling(by: string): void {
    this.schedulingTakenOverBy = by;
  }

  emit<K extends EventType>(type: K, data: EventPayloads[K], findings?: Findings): void {
    this.hooks.event.call(makeEvent(type, data, findings));
  }

  onClose(handler: () => Promise<void> | void): void {
    this.#closers.push(handler);
  }

  async close(): Promise<void> {
    for (const handler of this.#closers.splice(0).reverse()) {
      try {
        await handler();
      } catch (err) {
        this.logger.error({ err: messageOf(err) }, 'error while closing');
      }
    }
  }

  async targets(request: RunRequest = {}): Promise<Target[]> {
    const { ctx, done } = this.#context('list', request);
    try {
      return await discoverAndSelect(this.hooks, ctx);
    } finally {
      done();
    }
  }

  async check(request: RunRequest = {}): Promise<CheckReport> {
    const { ctx, done } = this.#context('check', request);
    try {
      return await this.#checkRun(ctx);
    } finally {
      done();
    }
  }

  #checkRun(ctx: RunContext): Promise<CheckReport> {
    return this.#observed(ctx, 'check', async () => {
      const { results } = await discoverAndCheck(this.hooks, this.#split, ctx, this.#concurrency);
      const report: CheckReport = { runId: ctx.runId, results, startedAt: ctx.startedAt, finishedAt: new Date() };
      this.emit('run_report', { run_id: ctx.runId, trigger: ctx.trigger, ...actorField(ctx), kind: 'check', report });
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
    const { ctx, done } = this.#context('update', request);
    try {
      return await this.#updateRun(ctx);
    } finally {
      done();
    }
  }

  async #updateRun(ctx: RunContext): Promise<UpdateReport> {
    let release: Release | undefined;
    if (ctx.targeted) {
      release = await this.lock.acquire(ctx.signal);
    } else {
      release = this.lock.tryAcquire();
      if (!release) {
        this.emit('scan_skipped', { kind: 'update', trigger: ctx.trigger });
        throw errors.busy();
      }
    }
    try {
      return await this.#observed(ctx, 'update', async () => {
        const report = await runUpdate(this.#runDeps(), ctx);
        this.emit('run_report', { run_id: ctx.runId, trigger: ctx.trigger, ...actorField(ctx), kind: 'update', report });
        return { report, summary: report.summary };
      });
    } finally {
      release();
    }
  }

  async plan(request: RunRequest = {}): Promise<Plan> {
    const { ctx, done } = this.#context('update', request, true);
    try {
      const decided = await decidePlan(this.#runDeps(), ctx, this.#plans.expiry());
      this.#plans.add(decided);
      return decided.plan;
    } finally {
      done();
    }
  }

  async applyPlan(planId: string, request: Omit<RunRequest, 'filters'> = {}): Promise<AppliedPlan> {
    const decided = this.#plans.take(planId);
    const { ctx, done } = this.#context('update', { ...request, filters: decided.filters });
    try {
      return await this.#applyPlanRun(planId, decided, ctx);
    } finally {
      done();
    }
  }

  async #applyPlanRun(planId: string, decided: ReturnType<PlanStore['take']>, ctx: RunContext): Promise<AppliedPlan> {
    let release: Release | undefined;
    try {
      // As the run it previews: a full plan is refused while another update runs, a targeted one waits.
      release = ctx.targeted ? await this.lock.acquire(ctx.signal) : this.lock.tryAcquire();
    } catch (err) {
      // Cancelled before it began: nothing of the plan was applied, it may be applied later.
      this.#plans.giveBack(planId);
      throw err;
    }
    if (!release) {
      this.#plans.giveBack(planId);
      this.emit('scan_skipped', { kind: 'update', trigger: ctx.trigger });
      throw errors.busy();
    }
    try {
      return await this.#observed(ctx, 'update', async () => {
        const report = await applyDecidedPlan(this.#runDeps(), decided, ctx);
        this.emit('run_report', { run_id: ctx.runId, trigger: ctx.trigger, ...actorField(ctx), kind: 'update', report });
        return { report, summary: report.summary };
      });
    } finally {
      release();
    }
  }

  #runDeps(): UpdateRunDeps {
    return {
      hooks: this.hooks,
      split: this.#split,
      concurrency: this.#concurrency,
      updateConcurrency: this.#updateConcurrency,
      emit: this.emit.bind(this),
    };
  }

  /** Wraps a run with its scan events, its history entry and its log lines. */
  async #observed<R>(
    ctx: RunContext,
    kind: RunKind,
    body: () => Promise<{ report: R; summary: UpdateReport['summary'] }>,
  ): Promise<R> {
    this.emit('scan_started', { run_id: ctx.runId, kind, targeted: ctx.targeted, trigger: ctx.trigger, ...actorField(ctx) });
    ctx.logger.info({ targeted: ctx.targeted }, `${kind} run started`);
    const record = (summary: UpdateReport['summary'], error?: string) =>
      this.history.add({
        runId: ctx.runId,
        kind,
        targeted: ctx.targeted,
        trigger: ctx.trigger,
        ...(ctx.actor ? { actor: ctx.actor } : {}),
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
      const error = messageOf(reason);
      this.emit('scan_failed', { run_id: ctx.runId, error });
      record({ scanned: 0, updated: 0, failed: 0, restarted: 0, skipped: 0 }, error);
      ctx.logger.error({ err: error }, `${kind} run failed`);
      throw reason;
    }
  }

  /** Resolves a plugin's options and checks its rules; nothing is applied yet. */
  prepare(entry: TidewatchPlugin<object> | PluginUse<object>): Prepared {
    const { plugin, options } = isPluginUse(entry) ? entry : { plugin: entry, options: undefined };
    const values = resolvePluginOptions(plugin, options);
    const enabled = plugin.enabled?.(values) ?? true;
    this.options.push({ plugin: plugin.name, specs: plugin.options ?? {}, values: values as Record<string, unknown>, enabled });
    // Checked even when the plugin is off: a half-given setting is a mistake either way.
    const specs = plugin.options ?? {};
    const label = (key: string) => (specs[key] ? this.#label(specs[key]) : key);
    for (const warning of plugin.check?.(values, label) ?? []) this.logger.warn({ plugin: plugin.name }, warning);
    return { plugin, values, enabled };
  }

  async use({ plugin, values, enabled }: Prepared): Promise<void> {
    if (!enabled) return;
    this.services.current = plugin.name;
    try {
      await plugin.apply(this, values);
    } catch (err) {
      if (err instanceof ConfigError || isTidewatchError(err, errors.serviceConflict)) throw err;
      const wrapped = errors.pluginFailed(plugin.name, 'apply', messageOf(err));
      wrapped.cause = err;
      throw wrapped;
    } finally {
      this.services.current = 'embedder';
    }
    this.plugins.push(plugin.name);
  }

  /** Every applied plugin's required services must be there once all plugins are applied. */
  checkRequirements(entries: readonly (TidewatchPlugin<object> | PluginUse<object>)[]): void {
    for (const entry of entries) {
      const plugin = isPluginUse(entry) ? entry.plugin : entry;
      if (!this.plugins.includes(plugin.name)) continue;
      for (const key of plugin.requires ?? []) {
        if (!this.services.has(key)) throw errors.serviceMissing(key.name, plugin.name);
      }
    }
  }
}

export async function createTidewatch(options: TidewatchOptions = {}): Promise<Tidewatch> {
  const engine = new TidewatchEngine(options);
  const entries = options.plugins ?? [];
  // Every plugin's options are checked before any plugin is applied: a bad option must stop start-up
  // before a runtime has touched anything.
  const prepared = entries.map((entry) => engine.prepare(entry));
  for (const p of prepared) await engine.use(p);
  engine.checkRequirements(entries);
  return engine;
}
