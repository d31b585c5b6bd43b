// Builds the distribution image from the top-level Dockerfile on the private engine, the way a user
// builds it, except for the base: CI cannot pull node:24-bookworm-slim, so scripts/node-base-image.sh
// makes a stand-in from the pinned Node 24 first (docs/image.md, "Building without Docker Hub").
// One build per test process; the engine's layer cache makes the next process's build quick.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestEnv } from './env.js';
import { REPO_ROOT } from './service.js';

const run = promisify(execFile);
export const BASE_TAG = 'tidewatch-node-base:local';
/** The stand-in base per Node line (docs/node.md): 24 is the image's; 20 only for bench:image-memory. */
const BASE_TAGS = { '24': BASE_TAG, '20': 'tidewatch-node-base:node20' } as const;
const built = new Map<string, Promise<string>>();

/** `docker` against the private engine; resolves to stdout, rejects with stderr. */
export async function dockerCli(env: TestEnv, args: string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await run('docker', args, {
    env: { ...process.env, DOCKER_HOST: env.dockerHost, DOCKER_BUILDKIT: '0' },
    cwd: REPO_ROOT,
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

/**
 * Builds (once per tag and process) and returns the tag. `revision` varies the image, for self-update;
 * `line` picks the Node of the stand-in base.
 */
export function tidewatchImage(env: TestEnv, tag = 'tidewatch:test', revision = 'test', line: keyof typeof BASE_TAGS = '24'): Promise<string> {
  let promise = built.get(tag);
  if (!promise) {
    promise = (async () => {
      const base = BASE_TAGS[line];
      await run('bash', ['scripts/node-base-image.sh', base, line], {
        env: { ...process.env, DOCKER_HOST: env.dockerHost },
        cwd: REPO_ROOT,
        timeout: 120_000,
      });
      // --network host: the build stage's `npm ci` reaches the npm registry through the host's network
      // (the private engine has no bridge).
      await dockerCli(
        env,
        ['build', '-q', '--network', 'host', '--build-arg', `NODE_IMAGE=${base}`, '--build-arg', `REVISION=${revision}`, '-t', tag, '.'],
        600_000,
      );
      return tag;
    })();
    built.set(tag, promise);
  }
  return promise;
}

/** The non-root user docs/security.md runs the image as. */
export const HARDENED_USER = '1000:1000';

/**
 * docs/security.md's hardened form of `docker run`, without the Engine's socket: non-root, read-only root
 * with a tmpfs and the `/data` volume `data`, no new privileges, every capability dropped.
 */
export function hardenedRunFlags(data: string): string[] {
  return [
    '--user', HARDENED_USER,
    '--read-only', '--tmpfs', '/tmp',
    '-v', `${data}:/data`,
    '--security-opt', 'no-new-privileges', '--cap-drop', 'ALL',
  ];
}
