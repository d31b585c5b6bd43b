// The real test environment started by scripts/test-env.sh: a private Docker Engine and two registries
// on loopback. Tests that need it call requireEnv(t); they skip on a developer's machine without it and
// FAIL in CI (CI=true), never skip there.
import { readFileSync } from 'node:fs'
import { open, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import Docker from 'dockerode'

export interface TestEnv {
  /** the private engine's unix socket, e.g. /tmp/tidewatch-env/docker.sock */
  dockerSocket: string
  /** the same as a DOCKER_HOST value: unix:///tmp/tidewatch-env/docker.sock */
  dockerHost: string
  /** anonymous registry, host:port (127.0.0.1:5101) */
  registry: string
  /** htpasswd Basic-auth registry, host:port (127.0.0.1:5102) */
  authRegistry: string
  authUser: string
  authPassword: string
  /** access log of `registry` (one combined-format line per request, written after the response) */
  registryLog: string
  /** access log of `authRegistry` */
  authRegistryLog: string
  /** the registries' JSON application logs */
  registryAppLog?: string
  authRegistryAppLog?: string
  dockerdLog?: string
  /** overlay2 or vfs */
  storageDriver?: string
  /** the MQTT broker (Debian's mosquitto), host:port (127.0.0.1:1883); absent when it is not installed */
  mqtt?: string
  mosquittoLog?: string
  /** the engine on loopback TCP with TLS (several hosts, docs/hosts.md), e.g. tcp://127.0.0.1:2376; absent with TIDEWATCH_ENV_PACKAGES=engine */
  secondDockerHost?: string
  /** its client certificates (ca.pem, cert.pem, key.pem): a DOCKER_CERT_PATH */
  secondCertPath?: string
  secondDockerdLog?: string
  /** the second engine's registry mirrors, host:port in its order: a plain registry, one in proxy mode (docs/registry-mirrors.md);
   * nothing listens there until test/helpers/mirror-registries.ts starts them */
  secondRegistryMirrors?: string[]
  /** the proxy-mode mirror's upstream, standing in for Docker Hub (host:port; started by the same helper) */
  hubStandIn?: string
  /** the private single-node Swarm manager's unix socket (a second engine; never the main one) */
  swarmDockerSocket?: string
  /** the same as a DOCKER_HOST value */
  swarmDockerHost?: string
  /** Podman's Docker-compatible API (`podman system service`), e.g. /tmp/tidewatch-env/podman/podman.sock;
   * absent when podman is not installed (test/helpers/podman.ts requires it) */
  podmanSocket?: string
  /** the same as a DOCKER_HOST value */
  podmanHost?: string
  podmanLog?: string
  /** Debian trixie's Docker 26.1 (API 1.45) beside the main 20.10 engine (scripts/test-env.sh); absent with TIDEWATCH_ENV_PACKAGES=engine */
  docker26Socket?: string
  /** the same as a DOCKER_HOST value */
  docker26Host?: string
  docker26Log?: string
  /** Debian sid's Docker 28.5 (containerd 2.1) with the containerd image store, started with Docker 29's API floor 1.44 */
  docker28StoreSocket?: string
  docker28StoreHost?: string
  docker28StoreLog?: string
  /** the same Docker 28.5 with the classic image store (graph driver) */
  docker28Socket?: string
  docker28Host?: string
  docker28Log?: string
  /** Debian trixie's Compose v2 binary (`configs: content:`), for the copy-file test only; absent with TIDEWATCH_ENV_PACKAGES=engine */
  compose2?: string
  envDir: string
}

/** The environment with its second engine (docs/hosts.md). */
export interface TwoEngineEnv extends TestEnv {
  secondDockerHost: string
  secondCertPath: string
}

/** The environment with its Swarm engine. */
export type SwarmTestEnv = TestEnv & { swarmDockerSocket: string; swarmDockerHost: string }

export const DEFAULT_ENV_DIR = '/tmp/tidewatch-env'

export function envDir(): string {
  return process.env.TIDEWATCH_ENV_DIR || DEFAULT_ENV_DIR
}

const inCI = (): boolean => process.env.CI === 'true'

/** A dockerode client for the private engine (never the system one). */
export function docker(env: TestEnv): Docker {
  return new Docker({ socketPath: env.dockerSocket })
}

/** A dockerode client for the second engine, over TLS with the environment's client certificate. */
export function secondDocker(env: TwoEngineEnv): Docker {
  const url = new URL(env.secondDockerHost.replace(/^tcp:/, 'https:'))
  const file = (name: string) => readFileSync(join(env.secondCertPath, name))
  return new Docker({
    protocol: 'https',
    host: url.hostname,
    port: Number(url.port),
    ca: file('ca.pem'),
    cert: file('cert.pem'),
    key: file('key.pem'),
  })
}

async function registryAnswers(hostPort: string, auth?: string): Promise<void> {
  const headers: Record<string, string> = {}
  if (auth) headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`
  const res = await fetch(`http://${hostPort}/v2/`, { headers, signal: AbortSignal.timeout(5000) })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`registry ${hostPort} answered ${res.status} on /v2/`)
}

async function probe(): Promise<TestEnv> {
  const file = join(envDir(), 'env.json')
  let env: TestEnv
  try {
    env = JSON.parse(await readFile(file, 'utf8')) as TestEnv
  } catch (err) {
    throw new Error(`no test environment: cannot read ${file} (${(err as Error).message})`)
  }
  try {
    await docker(env).ping()
  } catch (err) {
    throw new Error(`no test environment: engine at ${env.dockerSocket} does not answer (${(err as Error).message})`)
  }
  try {
    await registryAnswers(env.registry)
    await registryAnswers(env.authRegistry, `${env.authUser}:${env.authPassword}`)
  } catch (err) {
    throw new Error(`no test environment: ${(err as Error).message}`)
  }
  return env
}

let cached: Promise<TestEnv> | undefined

/**
 * The environment, or undefined when it is not running (local runs only). In CI (CI=true) a missing
 * environment throws: tests must fail there, not skip. The probe runs once per process.
 */
export async function testEnv(): Promise<TestEnv | undefined> {
  cached ??= probe()
  try {
    return await cached
  } catch (err) {
    const msg = `${(err as Error).message}. Start it with: bash scripts/test-env.sh up`
    if (inCI()) throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`)
    return undefined
  }
}

/** The subset of a tap Test that requireEnv uses. */
interface SkippableTest {
  plan(n: number, comment?: string): void
}

/**
 * For tap tests: the environment, or undefined after marking the test skipped (locally; the caller
 * then returns). In CI it throws, which fails the test.
 *
 *   t.test('pulls', async t => {
 *     const env = await requireEnv(t)
 *     if (!env) return
 *     ...
 *   })
 */
export async function requireEnv(t: SkippableTest): Promise<TestEnv | undefined> {
  const env = await testEnv()
  if (!env) t.plan(0, 'no test environment (bash scripts/test-env.sh up)')
  return env
}

let secondProbe: Promise<TwoEngineEnv> | undefined

async function probeSecond(env: TestEnv): Promise<TwoEngineEnv> {
  const { secondDockerHost, secondCertPath } = env
  if (!secondDockerHost || !secondCertPath) throw new Error('no second engine in env.json (TIDEWATCH_ENV_PACKAGES=engine leaves it out)')
  const two = { ...env, secondDockerHost, secondCertPath }
  try {
    await secondDocker(two).ping()
  } catch (err) {
    throw new Error(`second engine at ${secondDockerHost} does not answer (${(err as Error).message})`)
  }
  return two
}

/**
 * requireEnv for the tests of several engines: the environment with its second engine, or undefined after
 * marking the test skipped (locally). In CI a missing second engine throws, failing the test.
 */
export async function requireTwoEngines(t: SkippableTest): Promise<TwoEngineEnv | undefined> {
  const env = await requireEnv(t)
  if (!env) return undefined
  secondProbe ??= probeSecond(env)
  try {
    return await secondProbe
  } catch (err) {
    const msg = `${(err as Error).message}. Start it with: bash scripts/test-env.sh up`
    if (inCI()) throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`)
    t.plan(0, msg)
    return undefined
  }
}

/** A dockerode client for the Swarm engine. */
export function swarmDocker(env: SwarmTestEnv): Docker {
  return new Docker({ socketPath: env.swarmDockerSocket })
}

/**
 * requireEnv for the Swarm tests: also the Swarm engine, answering as a manager. Missing locally: the test is
 * skipped; with CI=true it throws, which fails the test.
 */
export async function requireSwarm(t: SkippableTest): Promise<SwarmTestEnv | undefined> {
  const env = await requireEnv(t)
  if (!env) return undefined
  let why: string | undefined
  if (!env.swarmDockerSocket || !env.swarmDockerHost) why = 'the test environment has no Swarm engine'
  else {
    try {
      const info = (await new Docker({ socketPath: env.swarmDockerSocket }).info()) as { Swarm?: { ControlAvailable?: boolean } }
      if (info.Swarm?.ControlAvailable !== true) why = 'the Swarm engine is not a manager'
    } catch (err) {
      why = `the Swarm engine does not answer (${(err as Error).message})`
    }
  }
  if (why === undefined) return env as SwarmTestEnv
  const msg = `${why}. Start it with: bash scripts/test-env.sh up`
  if (inCI()) throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`)
  t.plan(0, msg)
  return undefined
}

/**
 * Remember where a log file ends now; read() later returns the lines appended since. The registries
 * write an access-log line after each response, so wait a moment (or use waitFor) before reading.
 */
export async function logMark(file: string): Promise<{ read(): Promise<string[]> }> {
  const start = await stat(file).then(s => s.size, () => 0)
  return {
    async read() {
      const fh = await open(file, 'r')
      try {
        const { size } = await fh.stat()
        if (size <= start) return []
        const buf = Buffer.alloc(size - start)
        await fh.read(buf, 0, buf.length, start)
        return buf.toString('utf8').split('\n').filter(Boolean)
      } finally {
        await fh.close()
      }
    },
  }
}

/** Poll fn until it returns a truthy value, or throw after timeoutMs. */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v) return v as NonNullable<T>
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline) {
      throw new Error(`waitFor: timed out after ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`)
    }
    await new Promise(r => setTimeout(r, intervalMs))
  }
}

/** The environment with its Docker 26 engine. */
export type Docker26TestEnv = TestEnv & { docker26Socket: string; docker26Host: string }

/**
 * requireEnv for the tests run on Docker 26 too: the environment with its Docker 26 engine answering, or undefined
 * after marking the test skipped (locally). In CI a missing Docker 26 throws, failing the test.
 */
export async function requireDocker26(t: SkippableTest): Promise<Docker26TestEnv | undefined> {
  const env = await requireEnv(t)
  if (!env) return undefined
  let why: string | undefined
  if (!env.docker26Socket || !env.docker26Host) why = 'the test environment has no Docker 26 engine'
  else {
    try {
      await new Docker({ socketPath: env.docker26Socket }).ping()
    } catch (err) {
      why = `Docker 26 at ${env.docker26Socket} does not answer (${(err as Error).message})`
    }
  }
  if (why === undefined) return env as Docker26TestEnv
  const msg = `${why}. Start it with: bash scripts/test-env.sh up`
  if (inCI()) throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`)
  t.plan(0, msg)
  return undefined
}

/** One of the environment's Docker 28.5 engines: its socket and DOCKER_HOST value. */
export interface ExtraEngine {
  readonly socket: string
  readonly host: string
}

/**
 * requireEnv for the tests run on Docker 28.5: the environment and the engine with the containerd image store on
 * (`store`, API floor 1.44 as Docker 29's) or off (`classic`), answering; undefined after marking the test skipped
 * (locally). In CI a missing engine throws, failing the test.
 */
export async function requireDocker28(t: SkippableTest, store: 'store' | 'classic'): Promise<{ env: TestEnv; engine: ExtraEngine } | undefined> {
  const env = await requireEnv(t)
  if (!env) return undefined
  const socket = store === 'store' ? env.docker28StoreSocket : env.docker28Socket
  const host = store === 'store' ? env.docker28StoreHost : env.docker28Host
  let why: string | undefined
  if (!socket || !host) why = `the test environment has no Docker 28 engine (${store})`
  else {
    try {
      await new Docker({ socketPath: socket }).ping()
    } catch (err) {
      why = `Docker 28 (${store}) at ${socket} does not answer (${(err as Error).message})`
    }
  }
  if (why === undefined) return { env, engine: { socket: socket as string, host: host as string } }
  const msg = `${why}. Start it with: bash scripts/test-env.sh up`
  if (inCI()) throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`)
  t.plan(0, msg)
  return undefined
}
