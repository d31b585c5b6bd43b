// A private CNCF Distribution registry (Debian's docker-registry 2.8) started by a test, on a free loopback
// port, whose `notifications.endpoints` point at a Tidewatch webhook receiver (docs/webhooks.md#distribution).
// Its access log (stdout) counts the requests it served; its app log (stderr) says what it delivered.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';

/** A port nothing listens on now (loopback). */
/** Kept here for the tests that import it from this module; the one copy is test/helpers/ports.ts. */
export { freePort } from './ports.js';
import { freePort } from './ports.js';

export interface NotifyingRegistry {
  /** `127.0.0.1:<port>`, as image references name it. */
  readonly registry: string;
  /** Access-log lines so far (one per request the registry served). */
  readonly access: string[];
  /** App-log lines so far (JSON). */
  readonly app: string[];
  stop(): Promise<void>;
}

export interface NotifyOptions {
  /** Where the registry POSTs its envelopes, e.g. `http://127.0.0.1:8080/v1/hooks/reg`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token: string;
  readonly timeout?: string;
  readonly threshold?: number;
  readonly backoff?: string;
}

/** The `notifications` block of docs/webhooks.md#distribution, with the test's endpoint. */
export function notificationsConfig(o: NotifyOptions): string {
  return `notifications:
  events:
    includereferences: true
  endpoints:
    - name: tidewatch
      url: ${o.url}
      headers:
        Authorization: [Bearer ${o.token}]
      timeout: ${o.timeout ?? '2s'}
      threshold: ${o.threshold ?? 1}
      backoff: ${o.backoff ?? '1s'}
`;
}

export async function startNotifyingRegistry(notify: NotifyOptions): Promise<NotifyingRegistry> {
  if (!existsSync(REGISTRY_BINARY)) throw new Error(`${REGISTRY_BINARY} is missing: apt-get install docker-registry`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tw-notify-registry-'));
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    `version: 0.1
log:
  level: info
  formatter: json
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: ${join(dir, 'data')}
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:${port}
  secret: tidewatch-webhook-tests-only
${notificationsConfig(notify)}`,
  );
  const child: ChildProcess = spawn(REGISTRY_BINARY, ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const access: string[] = [];
  const app: string[] = [];
  const collect = (into: string[]) => {
    let rest = '';
    return (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      into.push(...lines.filter(Boolean));
    };
  };
  child.stdout?.on('data', collect(access));
  child.stderr?.on('data', collect(app));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const registry = `127.0.0.1:${port}`;
  const until = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await fetch(`http://${registry}/v2/`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`docker-registry did not start on ${registry}:\n${app.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    registry,
    access,
    app,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
