// A filtering Docker socket proxy for the tests, built the way the popular docker-socket-proxy image builds
// it (docs/security.md#a-ready-socket-proxy-configuration): Debian's haproxy in front of the private engine's unix socket, on
// loopback TCP, with the image's own ACLs: one path regex per API section, each allowed by an environment
// switch (CONTAINERS=1, IMAGES=1, ...), every method but GET/HEAD refused unless POST=1, and everything else
// answered with haproxy's 403 page. Every request it saw is kept (method, path, status) from its log.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './env.js';
import { freePort } from './ports.js';

/** The image's switches, each the first path segment of the sections it allows (docs/security.md). */
export const SECTIONS = [
  'AUTH', 'BUILD', 'COMMIT', 'CONFIGS', 'CONTAINERS', 'DISTRIBUTION', 'EVENTS', 'EXEC', 'GRPC', 'IMAGES', 'INFO', 'NETWORKS',
  'NODES', 'PING', 'PLUGINS', 'SECRETS', 'SERVICES', 'SESSION', 'SWARM', 'SYSTEM', 'TASKS', 'VERSION', 'VOLUMES',
] as const;

/** The path segment each switch guards (`_ping` for PING). */
function segment(section: string): string {
  return section === 'PING' ? '_ping' : section.toLowerCase();
}

/** The proxy's haproxy.cfg: docker-socket-proxy's, with the engine's socket, a loopback port and a request log. */
export function haproxyConfig(engineSocket: string, port: number): string {
  const api = '^(/v[\\d\\.]+)?(/\\w+)?';
  const allow = SECTIONS.map((s) => `    http-request allow if { path,url_dec -m reg -i ${api}/${segment(s)} } { env(${s}) -m bool }`);
  return `global
    log stdout format raw daemon info
    maxconn 4000

defaults
    mode http
    log global
    log-format "%HM %HP %ST"
    option dontlognull
    option http-server-close
    option redispatch
    retries 3
    timeout http-request 10s
    timeout queue 1m
    timeout connect 10s
    timeout client 10m
    timeout server 10m
    timeout http-keep-alive 10s
    timeout check 10s
    maxconn 3000
    errorfile 403 /etc/haproxy/errors/403.http

backend dockerbackend
    server dockersocket ${engineSocket}

backend docker-events
    server dockersocket ${engineSocket}
    timeout server 0

frontend dockerfrontend
    bind 127.0.0.1:${port}
    http-request deny unless METH_GET || { env(POST) -m bool }
    http-request allow if { path,url_dec -m reg -i ${api}/containers/[a-zA-Z0-9_.-]+/((stop)|(restart)|(kill)) } { env(ALLOW_RESTARTS) -m bool }
    http-request allow if { path,url_dec -m reg -i ${api}/containers/[a-zA-Z0-9_.-]+/start } { env(ALLOW_START) -m bool }
    http-request allow if { path,url_dec -m reg -i ${api}/containers/[a-zA-Z0-9_.-]+/stop } { env(ALLOW_STOP) -m bool }
${allow.join('\n')}
    http-request deny
    default_backend dockerbackend

    use_backend docker-events if { path,url_dec -m reg -i ${api}/events }
`;
}

export interface ProxiedRequest {
  readonly method: string;
  /** The path as sent, query included. */
  readonly path: string;
  readonly status: number;
}

export interface SocketProxy {
  /** `tcp://127.0.0.1:PORT`: a DOCKER_HOST value. */
  readonly host: string;
  /** The switches it was started with (POST among them or not). */
  readonly switches: ReadonlySet<string>;
  /** Every request it logged so far. */
  requests(): ProxiedRequest[];
  stop(): Promise<void>;
}


/** Whether Debian's haproxy is installed (scripts/test-env.sh installs it; CI=true fails without it). */
export function haproxyInstalled(): boolean {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts haproxy with `switches` set to 1 in its environment (as `docker run -e CONTAINERS=1 ...` sets them)
 * and every other switch unset, in front of `engineSocket`.
 */
export async function startSocketProxy(engineSocket: string, switches: Iterable<string>): Promise<SocketProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-socket-proxy-'));
  const port = await freePort();
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig(engineSocket, port));
  const enabled = new Set(switches);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] };
  for (const name of enabled) env[name] = '1';
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen: ProxiedRequest[] = [];
  const output: string[] = [];
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^([A-Z]+) (\S+) (\d{3})$/.exec(line.trim());
      if (m) seen.push({ method: m[1] as string, path: m[2] as string, status: Number(m[3]) });
      else output.push(line);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${output.join('')}`);
      const res = await fetch(`http://127.0.0.1:${port}/_ping`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return true;
    }, 10_000);
  } catch (err) {
    await stop();
    throw err;
  }
  // The readiness probe is the test's, not Tidewatch's: haproxy logs it once answered, so wait for its line.
  await waitFor(() => seen.some((r) => r.path === '/_ping'), 5_000, 20);
  seen.length = 0;
  return { host: `tcp://127.0.0.1:${port}`, switches: enabled, requests: () => [...seen], stop };
}
