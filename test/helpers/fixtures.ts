// The test kit's shared fixtures (CONTRIBUTING.md#tests): a temporary directory removed after the test, and
// the service started on a scenario's engine for the test's own containers, stopped after it. Targets are
// test/helpers/targets.ts, ports test/helpers/ports.ts, test images and digests test/helpers/images.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from './service.js';

/** What a fixture needs of a tap test: somewhere to put its clean-up. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A fresh directory under the system's temporary one (`tw-<label>-…`), removed when the test ends. */
export async function tempDir(t: Teardown, label = 'test'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `tw-${label}-`));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The engine and the name prefix of a test's containers (a scenario of test/helpers/scenarios.ts). */
export interface ServeOn {
  /** The engine's DOCKER_HOST. */
  readonly host: string;
  readonly prefix: string;
}

/**
 * The real binary watching only the test's containers (`<prefix>-.*`) on `on.host`, with `args` (the
 * endpoints, token, timings the test needs), SIGKILLed when the test ends.
 */
export async function serveScenario(t: Teardown, on: ServeOn, args: readonly string[], startTimeoutMs?: number): Promise<RunningService> {
  const service = await startService(['--host', on.host, ...args, `${on.prefix}-.*`], {}, startTimeoutMs);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}
