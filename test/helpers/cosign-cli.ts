// The real cosign CLI (Debian sid's cosign 3.1, scripts/cosign-sid.sh) signing images on the local registry,
// as users sign them (docs/signatures.md#tests). Every run is sealed off from the internet: its own HOME and
// TUF_ROOT, no TUF signing config, no transparency-log upload, and a proxy on a closed loopback port for
// anything but 127.0.0.1, so a request cosign would send elsewhere fails at once instead of leaving.
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { requireEnv, type TestEnv } from './env.js'
import { REPO_ROOT } from './service.js'

export interface CosignCli {
  /** the binary */
  readonly path: string
  /** a directory of its own: HOME, TUF_ROOT, keys */
  readonly home: string
}

export interface CosignKeyPair {
  /** the encrypted private key `cosign generate-key-pair` wrote */
  readonly privateKey: string
  /** its public key (PEM file), what `--cosign-key` takes */
  readonly publicKey: string
  readonly password: string
}

function cosignPath(env: TestEnv): string | undefined {
  const found = spawnSync('bash', [join(REPO_ROOT, 'scripts/cosign-sid.sh'), 'path'], {
    env: { ...process.env, TIDEWATCH_ENV_DIR: env.envDir },
    encoding: 'utf8',
  })
  return found.status === 0 ? found.stdout.trim() : undefined
}

/** The env with sid's cosign; skips without it locally, FAILS under CI=true. */
export async function requireCosign(t: { plan(n: number, why: string): void }): Promise<{ env: TestEnv; cosign: CosignCli } | undefined> {
  const env = await requireEnv(t)
  if (!env) return undefined
  const cosign = cosignIn(t, env)
  return cosign ? { env, cosign } : undefined
}

/** sid's cosign in the env `env`, with a home of its own; skips without it locally, FAILS under CI=true. */
export function cosignIn(t: { plan(n: number, why: string): void }, env: TestEnv): CosignCli | undefined {
  const path = cosignPath(env)
  if (!path) {
    if (process.env['CI'] === 'true') throw new Error("sid's cosign 3 is not installed (bash scripts/cosign-sid.sh)")
    t.plan(0, "no sid cosign (bash scripts/cosign-sid.sh)")
    return undefined
  }
  const home = mkdtempSync(join(env.envDir, 'cosign-home-'))
  mkdirSync(join(home, 'tuf'))
  return { path, home }
}

/** Runs cosign sealed off (see the top of this file); resolves with its exit code and output. */
export function runCosign(cli: CosignCli, args: readonly string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: cli.home,
    TUF_ROOT: join(cli.home, 'tuf'),
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1',
    ...extraEnv,
  }
  return new Promise((resolve) => {
    execFile(cli.path, args, { env, cwd: cli.home, timeout: 90_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, output: `${stdout}${stderr}`.trim() })
    })
  })
}

async function mustRun(cli: CosignCli, args: readonly string[], extraEnv: Record<string, string> = {}): Promise<void> {
  const { code, output } = await runCosign(cli, args, extraEnv)
  if (code !== 0) throw new Error(`cosign ${args[0]} exited ${code}: ${output.split('\n').slice(-3).join(' | ')}`)
}

/** `cosign generate-key-pair` in a directory of its own: an encrypted private key (COSIGN_PASSWORD) and its public key. */
export async function generateKeyPair(cli: CosignCli, name: string): Promise<CosignKeyPair> {
  const dir = join(cli.home, name)
  mkdirSync(dir, { recursive: true })
  const password = `pw-${name}`
  await mustRun(cli, ['generate-key-pair', '--output-key-prefix', join(dir, 'cosign')], { COSIGN_PASSWORD: password })
  return { privateKey: join(dir, 'cosign.key'), publicKey: join(dir, 'cosign.pub'), password }
}

const OFFLINE = ['--tlog-upload=false', '--use-signing-config=false', '--allow-http-registry', '--yes'] as const

export interface SignOptions {
  /** `--new-bundle-format=false`: the legacy `.sig` tag instead of cosign 3's default v3 bundle */
  readonly legacy?: boolean
}

/** `cosign sign --key` of `registry/repo@digest`. */
export function cosignSign(cli: CosignCli, key: CosignKeyPair, image: string, options: SignOptions = {}): Promise<void> {
  const format = options.legacy ? ['--new-bundle-format=false'] : []
  return mustRun(cli, ['sign', '--key', key.privateKey, ...format, ...OFFLINE, image], { COSIGN_PASSWORD: key.password })
}

/** `cosign attest --key` of a SLSA provenance predicate: an attestation, never a signature. */
export function cosignAttest(cli: CosignCli, key: CosignKeyPair, image: string): Promise<void> {
  const predicate = join(cli.home, 'predicate.json')
  writeFileSync(predicate, JSON.stringify({ buildType: 'https://tidewatch.test/build', builder: { id: 'https://tidewatch.test/builder' } }))
  return mustRun(cli, ['attest', '--key', key.privateKey, '--predicate', predicate, '--type', 'slsaprovenance', ...OFFLINE, image], { COSIGN_PASSWORD: key.password })
}

/** `cosign verify --key` (no transparency log here): whether cosign itself accepts the image's signature. */
export async function cosignVerifies(cli: CosignCli, key: CosignKeyPair, image: string): Promise<{ ok: boolean; output: string }> {
  const { code, output } = await runCosign(cli, ['verify', '--key', key.publicKey, '--insecure-ignore-tlog=true', '--allow-http-registry', image])
  return { ok: code === 0, output }
}
