// The service process: read the configuration, load the plugins, then run once, or serve the HTTP
// API and/or run on a schedule until SIGTERM/SIGINT. Exit codes: 0 done, 1 runtime failure,
// 2 bad configuration (one line on stderr naming the option).
import {
  ConfigError,
  createTidewatch,
  errorMessage,
  errors,
  formatGoDuration,
  isTidewatchError,
  parseGoDuration,
  type Tidewatch,
  type TidewatchPlugin,
} from '../core/index.js';
import { optionLabel } from '../core/option.js';
import { readBootstrap, resolveConfig, servicePlugin, type ResolvedConfig } from './config/index.js';
import { loadPlugin, PluginLoadError } from './plugin-loader.js';
import { PLUGIN_NAME as DOCKER_PLUGIN, runSelfUpdateOrchestrator } from '../plugins/docker/index.js';
import type { Schedule, ScheduleSpec } from './scheduler.js';
import { Shutdown } from './shutdown.js';
import { readPackageVersion } from './version.js';

export interface MainIo {
  readonly argv: string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /**
   * Called once, when start-up is over: the plugins are started and the first discovery succeeded (or,
   * with --run-once, the run is about to begin). bin/tidewatch.js turns V8's optimizing compilers back on
   * here (docs/performance.md#v8-settings).
   */
  readonly onStarted?: () => void;
}

const FIRST_DISCOVERY_RETRY_MS = 5000;

/**
 * The exit-2 line for a problem a plugin found while starting: the configuration layer's own messages
 * name their option already (as flag or variable), a plugin's `invalidOptions` may not.
 */
function configErrorLine(err: unknown): string {
  const message = errorMessage(err);
  const option = err instanceof ConfigError ? err.option : undefined;
  return option && !message.includes(`--${option}`) ? `--${option}: ${message}` : message;
}

/** The scheduler (croner) loads only once the configuration is known to need one: not for --help. */
async function scheduleOf(resolved: ResolvedConfig): Promise<ScheduleSpec> {
  const { parseSchedule, InvalidScheduleError } = await import('./scheduler.js');
  const { schedule, interval } = resolved.config;
  if (schedule.trim() === '') return { everyMs: interval };
  try {
    return parseSchedule(schedule, parseGoDuration);
  } catch (err) {
    const why = err instanceof InvalidScheduleError ? err.message : errorMessage(err);
    throw new ConfigError(
      `invalid value ${JSON.stringify(schedule)} for --schedule (TIDEWATCH_SCHEDULE): ${why}; expected a cron expression with an optional seconds field, an @ descriptor such as @daily, or @every <duration>`,
      'schedule',
    );
  }
}

/**
 * Discovery must succeed once before /startupz says ok; keep trying in the background until it does.
 * `started` settles then: the modules the first discovery needed are loaded.
 */
function markStartedAfterFirstDiscovery(tw: Tidewatch): { stop: () => void; started: Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let discovered = () => {};
  const started = new Promise<void>((resolve) => (discovered = resolve));
  const attempt = async () => {
    try {
      await tw.targets({ trigger: 'startup' });
      tw.health.markStarted();
      discovered();
    } catch (err) {
      tw.logger.warn({ err: errorMessage(err) }, 'first discovery failed; retrying');
      if (!stopped) timer = setTimeout(() => void attempt(), FIRST_DISCOVERY_RETRY_MS);
    }
  };
  void attempt();
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  return { stop, started };
}

async function scheduledRun(tw: Tidewatch, trigger: string): Promise<void> {
  try {
    const report = await tw.update({ trigger });
    tw.logger.info({ ...report.summary, trigger }, 'scheduled update finished');
  } catch (err) {
    if (isTidewatchError(err, errors.busy)) tw.logger.info({ trigger }, 'another update is running; skipping this one');
    else tw.logger.error({ err: errorMessage(err), trigger }, 'scheduled update failed');
  }
}

/** Third-party plugins, loaded before the options are resolved: their declarations are part of the table. */
async function loadThirdParty(specifiers: readonly string[], cwd: string): Promise<Map<string, TidewatchPlugin<object>>> {
  const loaded = new Map<string, TidewatchPlugin<object>>();
  for (const specifier of specifiers) loaded.set(specifier, await loadPlugin(specifier, cwd));
  return loaded;
}

/** The ephemeral self-update helper (docs/image.md#ephemeral-self-update): one replacement, no service. */
async function orchestrate(io: MainIo, resolved: ResolvedConfig): Promise<number> {
  const { config } = resolved;
  const { createLogger } = await import('./logger.js');
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, debug: config.debug, trace: config.trace }, io.stdout);
  const docker = resolved.plugins.find((use) => use.plugin.name === DOCKER_PLUGIN);
  return runSelfUpdateOrchestrator(docker?.options ?? {}, io.env, logger);
}

export async function main(io: MainIo): Promise<number> {
  let resolved: ResolvedConfig;
  let schedule: ScheduleSpec;
  const checkOnly = io.argv[0] === 'check-config';
  try {
    // `notify-upgrade` is the fork's subcommand, never a container name (docs/watchtower-fork.md#notify-upgrade);
    // so is `check-config` (docs/configuration.md#checking-a-configuration).
    const upgrade = io.argv[0] === 'notify-upgrade';
    // `tidewatch agent` dials a controller instead of serving (docs/fleet.md#agent-mode).
    const agent = io.argv[0] === 'agent';
    // `check-config agent …` checks an agent's options (docs/fleet.md): the same table, no container names.
    const args = checkOnly && io.argv[1] === 'agent' ? io.argv.slice(2) : upgrade || checkOnly || agent ? io.argv.slice(1) : io.argv;
    const input = { argv: args, env: io.env, cwd: io.cwd };
    const thirdParty = await loadThirdParty(readBootstrap(input).specifiers, io.cwd);
    resolved = resolveConfig({ ...input, thirdParty });
    if (upgrade && resolved.help === undefined && !resolved.version) {
      if (resolved.names.length > 0) throw new ConfigError('notify-upgrade takes no container names', 'notify-upgrade');
      const { notifyUpgrade } = await import('./notify-upgrade.js');
      return await notifyUpgrade(resolved.config, io);
    }
    if (resolved.help !== undefined) {
      io.stdout.write(resolved.help.endsWith('\n') ? resolved.help : `${resolved.help}\n`);
      return 0;
    }
    if (resolved.version) {
      io.stdout.write(`tidewatch ${readPackageVersion()}\n`);
      return 0;
    }
    if (resolved.config.healthCheck) {
      // The image's HEALTHCHECK runs `tidewatch --health-check`: it reads the running service's heartbeat
      // and must not start a second service. Without a heartbeat file, Watchtower's answer: always 0.
      const path = resolved.config.heartbeatFile;
      if (path === '') return 0;
      const { heartbeatProblem } = await import('./heartbeat.js');
      const problem = await heartbeatProblem(path);
      if (problem !== undefined) io.stderr.write(`tidewatch: unhealthy: ${problem}\n`);
      return problem === undefined ? 0 : 1;
    }
    if (resolved.config['selfUpdateOrchestrator'] === true) return await orchestrate(io, resolved);
    if (agent) {
      if (resolved.names.length > 0) throw new ConfigError('tidewatch agent takes no container names', 'agent');
      const [{ runAgent }, { agentSettings }] = await Promise.all([import('./agent/index.js'), import('./agent/settings.js')]);
      return await runAgent(io, agentSettings(resolved));
    }
    schedule = await scheduleOf(resolved);
    if (checkOnly) {
      const { checkConfig } = await import('./check-config.js');
      const described = resolved.config.schedule.trim() !== '' ? resolved.config.schedule : `every ${formatGoDuration(resolved.config.interval)}`;
      return await checkConfig(io, resolved, described);
    }
  } catch (err) {
    // check-config's own checks are the plugins' (`validate`), whose messages may not name their option.
    if (checkOnly && (err instanceof ConfigError || isTidewatchError(err, errors.pluginOptions))) {
      io.stderr.write(`tidewatch: ${configErrorLine(err)}\n`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof PluginLoadError) {
      io.stderr.write(`tidewatch: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  const shutdown = new Shutdown((signal) => {
    io.stderr.write(`tidewatch: ${signal} again: exiting at once; the next start repairs what a replacement left\n`);
    process.exit(130);
  });
  try {
    return await serve(io, resolved, schedule, shutdown);
  } finally {
    shutdown.dispose();
  }
}

async function serve(io: MainIo, resolved: ResolvedConfig, schedule: ScheduleSpec, shutdown: Shutdown): Promise<number> {
  const { config } = resolved;
  const { createLogger } = await import('./logger.js');
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, debug: config.debug, trace: config.trace }, io.stdout);
  if (resolved.aliasesUsed.length > 0) logger.info({ aliases: resolved.aliasesUsed }, 'read Watchtower variables as aliases');
  for (const warning of resolved.warnings) logger.warn(warning);

  let tw: Tidewatch;
  try {
    tw = await createTidewatch({
      logger,
      plugins: resolved.plugins,
      mode: config.runOnce ? 'once' : 'service',
      updateConcurrency: config.updateConcurrency,
      planTtlMs: config.planTtl,
      optionLabel: (spec) => optionLabel(spec),
    });
  } catch (err) {
    if (err instanceof ConfigError || isTidewatchError(err, errors.pluginOptions)) {
      io.stderr.write(`tidewatch: ${configErrorLine(err)}\n`);
      return 2;
    }
    io.stderr.write(`tidewatch: startup failed: ${errorMessage(err)}\n`);
    return 1;
  }
  shutdown.onRequest((signal) => {
    logger.info({ signal }, 'shutting down: finishing or rolling back the replacement in progress');
    tw.stop(`Tidewatch is stopping (${signal})`);
  });
  if (shutdown.signal !== undefined) {
    // Asked to stop while the plugins started (a start-up repair finished first): nothing more to do.
    await tw.close();
    return 0;
  }

  if (config.runOnce) {
    io.onStarted?.();
    try {
      const report = await tw.update({ trigger: 'run-once' });
      logger.info(report.summary, 'run-once finished');
      return shutdown.signal !== undefined || report.summary.failed === 0 ? 0 : 1;
    } catch (err) {
      if (shutdown.signal !== undefined) {
        logger.info({ signal: shutdown.signal }, 'run-once stopped by signal');
        return 0;
      }
      logger.error({ err: errorMessage(err) }, 'run-once failed');
      return 1;
    } finally {
      await tw.close();
    }
  }

  if (!config.noStartupMessage) {
    logger.info(
      // The server's own options ride on a plugin of their own, which taps nothing: not worth listing.
      { version: readPackageVersion(), plugins: tw.plugins.filter((name) => name !== servicePlugin.name), host: config['host'], http_api: config['httpApiEndpoints'] },
      'Tidewatch started',
    );
  }
  const startup = markStartedAfterFirstDiscovery(tw);
  const stopHeartbeat = config.heartbeatFile === '' ? undefined : (await import('./heartbeat.js')).startHeartbeat(tw, config.heartbeatFile);
  // A plugin that starts update runs itself (the HTTP API's update endpoint, unless periodic polls are
  // asked for: Watchtower's rule, docs/http-api-contract.md §1) turns the schedule off.
  let timer: Schedule | undefined;
  if (tw.schedulingTakenOverBy === undefined) {
    if (config.updateOnStart) void scheduledRun(tw, 'startup');
    const { startSchedule } = await import('./scheduler.js');
    timer = startSchedule(schedule, () => scheduledRun(tw, 'schedule'));
    logger.info({ next_run: timer.next()?.toISOString() }, 'scheduled updates enabled');
  } else {
    // A warning, once: the user who enabled the dashboard or the API rarely meant to stop the schedule
    // (docs/dashboard.md#keeping-the-schedule).
    logger.warn(
      { schedule: config.schedule !== '' ? config.schedule : `every ${formatGoDuration(config.interval)}`, option: '--http-api-periodic-polls' },
      'periodic updates are off because the HTTP API\'s update endpoint is enabled: add --http-api-periodic-polls (TIDEWATCH_HTTP_API_PERIODIC_POLLS=true) to keep the schedule',
    );
  }
  // Start-up is over once the schedule is set up and the first discovery succeeded.
  void startup.started.then(() => io.onStarted?.());

  await shutdown.requested;
  timer?.stop();
  startup.stop();
  // The run in progress was cancelled between targets; its replacement under way finishes or rolls back
  // before the process leaves. Holding the lock while closing keeps new runs from starting on the way out.
  const release = await tw.lock.acquire();
  await tw.close();
  release();
  await stopHeartbeat?.(); // healthy until the very end: a graceful stop is not a failure
  return 0;
}
