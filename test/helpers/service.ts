// Starts the real `tidewatch` binary (bin/tidewatch.js over the compiled dist/) as a child process,
// the way a user runs it, and finds the HTTP API's address in its JSON log.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/tidewatch.js', import.meta.url));
/** Node's flags as the image's entry point passes them (Dockerfile, docs/performance.md#memory). */
export const IMAGE_NODE_FLAGS: string[] = [];
/** The flags tests and benchmarks start the binary with: the image's, unless TIDEWATCH_TEST_NODE_FLAGS says otherwise. */
export const NODE_FLAGS = (process.env['TIDEWATCH_TEST_NODE_FLAGS'] ?? IMAGE_NODE_FLAGS.join(' ')).split(' ').filter(Boolean);

export interface RunningService {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` of the HTTP API. */
  readonly url: string;
  /** Every log line so far, parsed where it was JSON. */
  readonly logs: Record<string, unknown>[];
  readonly stderr: string[];
  /** SIGTERM, then wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ExitedService {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the binary to completion (for --help, bad configuration, --run-once). */
export function runBinary(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<ExitedService> {
  return spawnBinary(args, env, timeoutMs).exited;
}

/** Starts the binary and gives its process (to signal it) and its exit, with everything it printed. */
export function spawnBinary(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): { child: ChildProcess; exited: Promise<ExitedService> } {
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<ExitedService>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tidewatch ${args.join(' ')} did not exit within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, exited };
}

/**
 * Starts the service with the HTTP API on an ephemeral loopback port and waits until it listens. `bin`: another
 * build's bin/tidewatch.js (a benchmark's baseline, docs/performance.md).
 */
export function startService(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 90_000, bin = BIN): Promise<RunningService> {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, bin, '--http-api-host', '127.0.0.1', '--http-api-port', '0', '--http-api-rate-limit', '0', ...args],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  let buffered = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tidewatch did not start listening within ${timeoutMs} ms:\n${JSON.stringify(logs)}\n${stderr.join('')}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          entry = { msg: line };
        }
        logs.push(entry);
        if (entry['msg'] === 'HTTP API listening' && typeof entry['address'] === 'string') {
          clearTimeout(timer);
          resolve({
            child,
            url: entry['address'],
            logs,
            stderr,
            async stop(signal: NodeJS.Signals = 'SIGTERM') {
              if (child.exitCode === null) child.kill(signal);
              return exited;
            },
          });
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`tidewatch exited with ${code} before listening:\n${JSON.stringify(logs)}\n${stderr.join('')}`));
    });
  });
}

/** POST/GET helper returning status, headers and parsed JSON (or text). */
export async function call(
  url: string,
  options: { method?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  const res = await fetch(url, { method: options.method ?? 'GET', headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** The service with every endpoint enabled and both tokens, against `dockerHost` (the hostile-input tests). */
export function startFullApi(
  dockerHost: string,
  tokens: { readonly token: string; readonly eventsToken: string },
  extra: string[] = [],
): Promise<RunningService> {
  return startService([
    '--host', dockerHost,
    '--http-api-endpoints', 'all',
    '--http-api-token', tokens.token,
    '--http-api-events-token', tokens.eventsToken,
    ...extra,
  ]);
}
