// The setting most end-to-end tests start from: the environment, a unique prefix whose containers and
// images are removed afterwards, and a container running an image pushed to the local registry.
import Docker from 'dockerode';
import { docker, requireDocker26, requireDocker28, requireEnv, type TestEnv } from './env.js';
import {
  pullImage,
  pushImage,
  removeContainers,
  removeImages,
  runContainer,
  testPrefix,
  type ImageSpec,
  type PushedImage,
  type RunOptions,
} from './images.js';

/**
 * A command that exits at once on SIGTERM, so stops are quick: busybox sleep as PID 1 ignores the
 * signal, but `wait` is interrupted by it and the trap exits.
 */
export const QUICK_STOP_CMD = ['/bin/sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"];

export interface Scenario {
  readonly env: TestEnv;
  readonly engine: Docker;
  /** `tw-<label>-<random>`: every container and repository of the test starts with it. */
  readonly prefix: string;
}

interface Teardownable {
  plan(n: number, comment?: string): void;
  teardown(fn: () => unknown): void;
}

/** The environment and a prefix cleaned up after the test; undefined when the test was skipped. */
export async function scenario(t: Teardownable, label: string): Promise<Scenario | undefined> {
  const env = await requireEnv(t);
  if (!env) return undefined;
  const engine = docker(env);
  const prefix = testPrefix(label);
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  return { env, engine, prefix };
}

/** A scenario on one engine of the environment, with the engine's DOCKER_HOST value and socket. */
export type EngineScenario = Scenario & { readonly host: string; readonly socket: string };

/** scenario() on the main engine (Docker 20.10), with its host and socket. */
export async function mainScenario(t: Teardownable, label: string): Promise<EngineScenario | undefined> {
  const s = await scenario(t, label);
  return s && { ...s, host: s.env.dockerHost, socket: s.env.dockerSocket };
}

/** A scenario on the engine at `socket`: a prefix whose containers and images are removed afterwards. */
function scenarioOnEngine(t: Teardownable, env: TestEnv, socket: string, host: string, label: string): EngineScenario {
  const engine = new Docker({ socketPath: socket });
  const prefix = testPrefix(label);
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  return { env, engine, prefix, host, socket };
}

/** scenario() on the environment's Docker 26 engine (scripts/test-env.sh); CI=true fails without it. */
export async function docker26Scenario(t: Teardownable, label: string): Promise<EngineScenario | undefined> {
  const env = await requireDocker26(t);
  return env && scenarioOnEngine(t, env, env.docker26Socket, env.docker26Host, label);
}

/** scenario() on Docker 28.5 with the containerd image store (API floor 1.44, as Docker 29); CI=true fails without it. */
export async function docker28StoreScenario(t: Teardownable, label: string): Promise<EngineScenario | undefined> {
  const found = await requireDocker28(t, 'store');
  return found && scenarioOnEngine(t, found.env, found.engine.socket, found.engine.host, label);
}

/** scenario() on Docker 28.5 with the classic image store; CI=true fails without it. */
export async function docker28Scenario(t: Teardownable, label: string): Promise<EngineScenario | undefined> {
  const found = await requireDocker28(t, 'classic');
  return found && scenarioOnEngine(t, found.env, found.engine.socket, found.engine.host, label);
}

export interface RunningOn {
  readonly name: string;
  readonly repo: string;
  readonly image: PushedImage;
  readonly container: Docker.Container;
}

/**
 * Pushes `${prefix}/<name>` (marker `v1`, quick to stop unless `image.cmd` says otherwise), pulls it and
 * runs it as `${prefix}-<name>`.
 */
export async function runningOn(
  s: Scenario,
  name = 'app',
  options: { image?: Partial<ImageSpec>; run?: Partial<RunOptions> } = {},
): Promise<RunningOn> {
  const repo = `${s.prefix}/${name}`;
  // The repository in the marker keeps image ids distinct across tests: a test's --cleanup removes images by
  // id, and test files share the engine.
  const image = await pushImage({ registry: s.env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD, ...options.image });
  await pullImage(s.engine, image.ref);
  const containerName = `${s.prefix}-${name}`;
  const container = await runContainer(s.engine, { name: containerName, image: image.ref, ...options.run });
  return { name: containerName, repo, image, container };
}

/** Pushes another image to the same repository and tag (marker `v2` unless given). */
export function pushNext(s: Scenario, running: RunningOn, spec: Partial<ImageSpec> = {}): Promise<PushedImage> {
  return pushImage({ registry: s.env.registry, repo: running.repo, marker: `${running.repo} v2`, cmd: QUICK_STOP_CMD, ...spec });
}

/** One of the four engine set-ups every engine scenario runs on (docs/engines.md#engines-tested). */
export interface EngineSetup {
  readonly label: string;
  /** A scenario on the engine, or undefined when the test was skipped (locally, without that engine). */
  readonly scenario: (t: Teardownable, label: string) => Promise<EngineScenario | undefined>;
  /** Whether `version` is the API the engine must speak: 20.10 is 1.41, 26.1 is 1.45, 28.5 is 1.51. */
  readonly api: (version: number) => boolean;
}

export const ENGINE_SETUPS: readonly EngineSetup[] = [
  { label: 'Docker 20.10', scenario: mainScenario, api: (v) => v === 1.41 },
  { label: 'Docker 26', scenario: docker26Scenario, api: (v) => v >= 1.45 && v < 1.48 },
  { label: 'Docker 28.5 containerd store', scenario: docker28StoreScenario, api: (v) => v >= 1.51 },
  { label: 'Docker 28.5 classic store', scenario: docker28Scenario, api: (v) => v >= 1.51 },
];
