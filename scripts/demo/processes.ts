// Finding and stopping the demo's own processes by pid. The demo's engine, registries and Tidewatch all
// carry the demo's directory in their command line (a --config, --data-root or --host under it), and so do
// containerd's shims (-address DIR/containerd.sock): that path is what ties a process to one demo.
import { readFileSync, readdirSync } from 'node:fs';

/** The command line of a process, NULs as spaces; undefined when it is gone or unreadable. */
export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** Alive and not a zombie (an orphan that exited is reaped by PID 1 only later). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every running process (but this one) whose command line mentions `dir` followed by a slash. */
export function processesUnder(dir: string): { pid: number; command: string }[] {
  const needle = `${dir.replace(/\/+$/, '')}/`;
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const command = commandLine(pid);
    if (command?.includes(needle) && isRunning(pid)) found.push({ pid, command });
  }
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(pid: number, graceMs = 15_000): Promise<void> {
  if (!isRunning(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isRunning(pid) && Date.now() < deadline) await sleep(100);
  if (!isRunning(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  const killDeadline = Date.now() + 5_000;
  while (isRunning(pid) && Date.now() < killDeadline) await sleep(50);
}
