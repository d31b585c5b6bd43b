// Fleet agents for the tests (docs/fleet.md): enrolment through the controller's API and `tidewatch agent`
// as a real process of the built binary, its log lines kept, stopped (or killed) by the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, NODE_FLAGS, REPO_ROOT, call } from './service.js';
import { waitFor } from './env.js';

export interface RunningAgent {
  readonly name: string;
  readonly child: ChildProcess;
  readonly dataDir: string;
  readonly logs: Record<string, unknown>[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface AgentView {
  name: string;
  host: string;
  state: 'online' | 'offline';
  stage: number;
  last_seen: string | null;
  connected_at: string | null;
  version: string | null;
  engine_version: string | null;
  containers: number | null;
}

/** A one-time enrolment token from the controller (`POST /v1/agents/enrolments`). */
export async function enrolToken(controllerUrl: string, token: string, name?: string): Promise<string> {
  const res = await fetch(`${controllerUrl}/v1/agents/enrolments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(name === undefined ? {} : { name }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 201 || !body.token) throw new Error(`enrolment answered ${res.status}: ${JSON.stringify(body)}`);
  return body.token;
}

export async function listAgents(controllerUrl: string, token: string): Promise<AgentView[]> {
  const res = await call(`${controllerUrl}/v1/agents`, { token });
  if (res.status !== 200) throw new Error(`GET /v1/agents answered ${res.status}: ${res.text}`);
  return (res.body as { agents: AgentView[] }).agents;
}

/** Waits until the agent named is in `state` at the controller. */
export async function waitForAgent(controllerUrl: string, token: string, name: string, state: 'online' | 'offline' | 'gone', timeoutMs = 30_000): Promise<AgentView | undefined> {
  let last: AgentView | undefined;
  await waitFor(async () => {
    const agents = await listAgents(controllerUrl, token).catch(() => undefined);
    if (!agents) return undefined;
    last = agents.find((a) => a.name === name);
    return state === 'gone' ? (last === undefined ? true : undefined) : last?.state === state ? true : undefined;
  }, timeoutMs, 200);
  return last;
}

/** `tidewatch agent` as a process: dials `controller` and forwards to the engine at `host`. */
export function startAgent(options: { controller: string; name: string; host: string; token?: string; dataDir?: string; extra?: string[]; env?: NodeJS.ProcessEnv; nodeFlags?: string[] }): RunningAgent {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `tw-agent-${options.name}-`));
  const child = spawn(
    process.execPath,
    [
      ...NODE_FLAGS, ...(options.nodeFlags ?? []), BIN, 'agent',
      '--controller', options.controller,
      '--agent-name', options.name,
      '--host', options.host,
      '--data-dir', dataDir,
      ...(options.token ? ['--enrol-token', options.token] : []),
      ...(options.extra ?? []),
    ],
    { cwd: REPO_ROOT, env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logs: Record<string, unknown>[] = [];
  let buffered = '';
  child.stdout?.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr?.on('data', (d: Buffer) => logs.push({ stderr: d.toString() }));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    name: options.name,
    child,
    dataDir,
    logs,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
