// The second engine's registry mirrors as real Distribution registries (Debian's docker-registry): a plain one,
// and one in Distribution's `proxy` mode (a pull-through cache) whose upstream stands in for Docker Hub. The
// engine names them (`--registry-mirror`, scripts/test-env.sh); this helper runs them on those ports, so that a
// test can take each one down and bring it back (docs/registry-mirrors.md).
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { envDir, requireTwoEngines, type TwoEngineEnv } from './env.js'

export type MirrorEnv = TwoEngineEnv & { secondRegistryMirrors: [string, string]; hubStandIn: string }

/** The environment with its second engine's mirror ports, or undefined after a skip (never in CI: it throws). */
export async function requireMirrors(t: Test): Promise<MirrorEnv | undefined> {
  const env = await requireTwoEngines(t)
  if (!env) return undefined
  const [plain, proxy] = env.secondRegistryMirrors ?? []
  if (!plain || !proxy || !env.hubStandIn) {
    const msg = 'env.json names no registry mirrors for the second engine: restart it with bash scripts/test-env.sh up'
    if (process.env.CI === 'true') throw new Error(`${msg} (CI=true: tests that need the real environment must not be skipped)`)
    t.plan(0, msg)
    return undefined
  }
  return { ...env, secondRegistryMirrors: [plain, proxy], hubStandIn: env.hubStandIn }
}

/** One docker-registry process on a fixed loopback port, its storage under the env dir. */
export class DistributionRegistry {
  #child: ChildProcess | undefined
  readonly #dir: string

  constructor(
    /** host:port */
    readonly address: string,
    name: string,
    /** Proxy mode: the upstream's URL. */
    readonly upstream?: string,
  ) {
    this.#dir = join(envDir(), 'mirror-registries', name)
  }

  async start(): Promise<void> {
    if (this.#child) return
    mkdirSync(this.#dir, { recursive: true })
    // A registry a killed run left on this port would answer for us: ended by its own pidfile.
    const pidfile = join(this.#dir, 'pid')
    if (existsSync(pidfile)) {
      const pid = Number(readFileSync(pidfile, 'utf8'))
      const cmdline = (() => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        } catch {
          return ''
        }
      })()
      if (pid > 0 && cmdline.includes('docker-registry')) process.kill(pid, 'SIGKILL')
    }
    const config = join(this.#dir, 'config.yml')
    writeFileSync(
      config,
      [
        'version: 0.1',
        'log: { level: warn, formatter: json, accesslog: { disabled: true } }',
        `storage: { filesystem: { rootdirectory: ${join(this.#dir, 'data')} }, delete: { enabled: true } }`,
        `http: { addr: ${this.address}, secret: tidewatch-mirror-tests-only }`,
        ...(this.upstream ? [`proxy: { remoteurl: ${this.upstream} }`] : []),
        '',
      ].join('\n'),
    )
    const child = spawn('/usr/bin/docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
    writeFileSync(pidfile, String(child.pid))
    this.#child = child
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) break
      try {
        const res = await fetch(`http://${this.address}/v2/`, { signal: AbortSignal.timeout(1000) })
        await res.arrayBuffer()
        if (res.status === 200) return
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    await this.stop()
    throw new Error(`docker-registry on ${this.address} did not answer: ${stderr}`)
  }

  /** Down: the port refuses connections until start() again (the storage stays). */
  async stop(): Promise<void> {
    const child = this.#child
    this.#child = undefined
    if (!child || child.exitCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    if (child.exitCode === null) child.kill('SIGKILL')
  }

  /** Forgets the storage (a fresh cache next start). */
  wipe(): void {
    rmSync(join(this.#dir, 'data'), { recursive: true, force: true })
  }
}

/**
 * The mirrors' ports are the environment's, one set: two test files running at once (tap's jobs) take turns. The
 * lock is a directory holding the owner's pid; a dead owner's lock is taken over. Released at the test's end,
 * after the registries stopped.
 */
async function lockMirrors(): Promise<() => void> {
  const root = join(envDir(), 'mirror-registries')
  mkdirSync(root, { recursive: true })
  const lock = join(root, 'lock')
  for (let waited = 0; ; waited += 250) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      break
    } catch {
      const owner = Number((() => {
        try {
          return readFileSync(join(lock, 'pid'), 'utf8')
        } catch {
          return '0'
        }
      })())
      const ownerAlive = owner > 0 && existsSync(`/proc/${owner}`)
      if (!ownerAlive && waited >= 1000) rmSync(lock, { recursive: true, force: true })
      else if (waited > 600_000) throw new Error(`the mirror registries stayed locked by pid ${owner}`)
      await new Promise((r) => setTimeout(r, 250))
    }
  }
  return () => rmSync(lock, { recursive: true, force: true })
}

/** The plain mirror, the proxy-mode mirror and its upstream for `env`, storage wiped, none started; `t` holds them. */
export async function mirrorRegistries(t: Test, env: MirrorEnv): Promise<{ plain: DistributionRegistry; proxy: DistributionRegistry; hub: DistributionRegistry }> {
  const release = await lockMirrors()
  const [plain, proxy] = env.secondRegistryMirrors
  const registries = {
    plain: new DistributionRegistry(plain, 'plain'),
    proxy: new DistributionRegistry(proxy, 'proxy', `http://${env.hubStandIn}`),
    hub: new DistributionRegistry(env.hubStandIn, 'hub'),
  }
  for (const r of Object.values(registries)) r.wipe()
  t.teardown(async () => {
    for (const r of Object.values(registries)) await r.stop()
    release()
  })
  return registries
}
