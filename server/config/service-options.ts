// The server's own options (scheduling, logging, plugin loading), declared like any plugin's, and the
// `tidewatch` plugin that carries them so they show in `--help` and `/v1/config` beside the plugins'.
import { option, type OptionValues } from '../../core/option.js';
import type { Parser } from '../../core/option-parsers.js';
import { definePlugin } from '../../core/plugin.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty', 'logfmt'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Cron strings are validated by the scheduler; here only the quotes a shell or compose file left are removed. */
const parseSchedule: Parser<string> = (raw) => {
  let t = raw.trim();
  while (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    t = t.slice(1, -1).trim();
  }
  return t;
};

const run = 'Scheduling and run mode';
const logging = 'Logging';
const plugins = 'Plugins and configuration';

export const SERVICE_OPTIONS = {
  interval: option.duration({
    flag: 'interval', short: 'i', watchtowerEnv: 'POLL_INTERVAL', default: 24 * HOUR, positive: true, group: run,
    description: 'Time between update runs (Go duration; digits alone are seconds). Cannot be combined with --schedule.',
  }),
  schedule: option.string({
    flag: 'schedule', short: 's', valueName: '<cron>', parse: parseSchedule, group: run,
    description: 'Cron expression (6 fields with seconds, or 5; descriptors such as @daily) instead of --interval.',
  }),
  runOnce: option.boolean({ flag: 'run-once', short: 'R', group: run, description: 'Run one update pass, then exit.' }),
  updateOnStart: option.boolean({
    flag: 'update-on-start', group: run, description: 'Run one update pass at startup, then follow the schedule.',
  }),
  updateConcurrency: option.integer({
    flag: 'update-concurrency', min: 1, max: 64, default: 1, watchtowerEnv: null, group: run,
    description: 'Containers that share no dependency chain replaced at once (default 1, one at a time as Watchtower).',
  }),
  planTtl: option.duration({
    flag: 'plan-ttl', default: 15 * MINUTE, positive: true, watchtowerEnv: null, group: run,
    description: 'How long a plan (POST /v1/plan) may be applied after it was decided (Go duration, default 15m).',
  }),
  healthCheck: option.boolean({
    flag: 'health-check', env: null, group: run,
    description:
      'Container HEALTHCHECK helper: instead of starting the service, exit 0 when the heartbeat file is fresh and ready (always 0 without --heartbeat-file, as Watchtower).',
  }),
  heartbeatFile: option.string({
    flag: 'heartbeat-file', default: '', watchtowerEnv: null, group: run, valueName: '<path>',
    description: 'File the running service rewrites every 10 s with its readiness, for --health-check (the image sets /tmp/tidewatch.heartbeat).',
  }),
  noStartupMessage: option.boolean({
    flag: 'no-startup-message', group: run, description: 'Do not log the startup summary.',
  }),
  logLevel: option.enum({
    flag: 'log-level', values: LOG_LEVELS, default: 'info', aliases: { panic: 'fatal', warning: 'warn' }, valueName: '<level>',
    group: logging, description: "trace, debug, info, warn, error or fatal (Watchtower's panic means fatal).",
  }),
  logFormat: option.enum({
    flag: 'log-format', short: 'l', values: LOG_FORMATS, default: 'auto', valueName: '<format>', group: logging,
    description: 'auto, json, pretty or logfmt.',
  }),
  debug: option.boolean({ flag: 'debug', short: 'd', group: logging, description: 'Shortcut for --log-level debug.' }),
  trace: option.boolean({ flag: 'trace', group: logging, description: 'Shortcut for --log-level trace.' }),
  noColor: option.boolean({
    flag: 'no-color', watchtowerEnv: null, externalEnv: 'NO_COLOR', externalEnvPresence: true, group: logging,
    description: 'No ANSI colours in log output: none are ever written; accepted for Watchtower\'s command lines (NO_COLOR too).',
  }),
  plugins: option.list({
    flag: 'plugins', valueName: '<modules>', group: plugins,
    description: 'Extra plugins to load: module paths or package names, comma or space separated.',
  }),
  config: option.path({
    flag: 'config', watchtowerEnv: null, group: plugins,
    description: 'YAML or JSON file of options (kebab-case or camelCase keys); flags and variables win over it.',
  }),
};

export type ServiceValues = OptionValues<typeof SERVICE_OPTIONS>;

/** Carries the server's options; taps nothing. */
export const servicePlugin = definePlugin({
  name: 'tidewatch',
  options: SERVICE_OPTIONS,
  apply() {},
});
