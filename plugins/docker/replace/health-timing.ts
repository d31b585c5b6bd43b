// How long the proof of a new container waits for its health check (docs/replacement.md#proof): the
// check's own timing, read from the new container's effective Healthcheck (the engine merges the image's
// into the container's at create, a zero field meaning Docker's default), bounded by
// --update-health-timeout. Docker runs the first probe one interval after the start and declares
// `unhealthy` only after `retries` failures counted once the start period is over, so a check at the
// default timing (30 s interval, 30 s timeout, 3 retries) needs 30 s before it can say `healthy` at all,
// and up to 3 min 30 s before it has to have said something.
import type Docker from 'dockerode';
import { formatGoDuration } from '../../../core/index.js';

const NS_PER_MS = 1_000_000;

/** Docker's defaults for a zero (unset) field (the Dockerfile reference, HEALTHCHECK). */
export const DOCKER_HEALTH_DEFAULTS = { intervalMs: 30_000, timeoutMs: 30_000, startPeriodMs: 0, retries: 3 } as const;

export interface HealthTiming {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly startPeriodMs: number;
  readonly retries: number;
  /**
   * By when Docker has given its verdict, at the latest: the start period, the first interval, then
   * `retries` probes that each may take the timeout and are an interval apart.
   */
  readonly verdictMs: number;
}

const ms = (ns: number | undefined, fallback: number): number => (ns && ns > 0 ? ns / NS_PER_MS : fallback);

/** The effective check's timing; undefined when the container has no check (none, or `NONE`). */
export function healthTiming(config: Docker.HealthConfig | null | undefined): HealthTiming | undefined {
  const test = config?.Test;
  if (!config || !test || test.length === 0 || test[0] === 'NONE') return undefined;
  const intervalMs = ms(config.Interval, DOCKER_HEALTH_DEFAULTS.intervalMs);
  const timeoutMs = ms(config.Timeout, DOCKER_HEALTH_DEFAULTS.timeoutMs);
  const startPeriodMs = ms(config.StartPeriod, DOCKER_HEALTH_DEFAULTS.startPeriodMs);
  const retries = config.Retries && config.Retries > 0 ? config.Retries : DOCKER_HEALTH_DEFAULTS.retries;
  const verdictMs = startPeriodMs + intervalMs + retries * (intervalMs + timeoutMs);
  return { intervalMs, timeoutMs, startPeriodMs, retries, verdictMs };
}

/** `start period 0s, interval 30s, timeout 30s, 3 retries`: what the waiting time was computed from. */
export function describeTiming(timing: HealthTiming): string {
  const d = formatGoDuration;
  return `start period ${d(timing.startPeriodMs)}, interval ${d(timing.intervalMs)}, timeout ${d(timing.timeoutMs)}, ${timing.retries} retries`;
}
