// How busy the whole machine was while a benchmark's side ran, from /proc/stat (Linux): when a side keeps
// every core busy, no client can make it faster, and the figure says how much of that CPU was the
// benchmark process's own (docs/performance.md#benchmarks).
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';

interface Sample {
  readonly busyMs: number;
  readonly totalMs: number;
  readonly ownMs: number;
}

// /proc/stat counts in USER_HZ, 100 per second on Linux.
const TICK_MS = 10;

function sample(): Sample {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  // idle and iowait are the two fields that are not work.
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const own = process.cpuUsage();
  return { busyMs: (total - idle) * TICK_MS, totalMs: total * TICK_MS, ownMs: (own.user + own.system) / 1000 };
}

export interface MachineCpu {
  /** CPU time every process spent, in ms. */
  readonly busyMs: number;
  /** The share of all cores' time that was busy, 0..1. */
  readonly busyShare: number;
  /** CPU time this process spent, in ms. */
  readonly ownMs: number;
  /** The shortest the others' work could have taken on this machine's cores, in ms. */
  readonly othersFloorMs: number;
}

/** Starts measuring; the returned function ends it. */
export function measureMachineCpu(): () => MachineCpu {
  const start = sample();
  return () => {
    const end = sample();
    const busyMs = end.busyMs - start.busyMs;
    const ownMs = end.ownMs - start.ownMs;
    return {
      busyMs,
      busyShare: busyMs / Math.max(1, end.totalMs - start.totalMs),
      ownMs,
      othersFloorMs: (busyMs - ownMs) / cpus().length,
    };
  };
}

export function describeMachineCpu(cpu: MachineCpu): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `machine ${Math.round(cpu.busyShare * 100)}% busy on ${cpus().length} cores, ${s(cpu.busyMs)} of CPU, this process ${s(cpu.ownMs)}; the rest alone needs at least ${s(cpu.othersFloorMs)}`;
}
