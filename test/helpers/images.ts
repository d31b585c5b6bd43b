// Tiny test images built in Node, without `docker build` and without any network but loopback:
// a busybox layer (Debian's static /bin/busybox plus applet symlinks), an optional layer with /marker
// (and extra files) that makes each image distinct, an image config and a Docker schema2 or OCI
// manifest, optionally wrapped in a manifest list / OCI index. Pushed straight to a registry over HTTP.
//
// Images are deterministic: the same spec gives the same digest. Make images distinct with `marker`,
// `labels`, `created`, `env`, ... Test files should name repositories and containers with
// testPrefix('<file>') so that test files can run concurrently.
import { createHash, randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import { pack } from 'tar-stream'

export const MEDIA = {
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const

export type ManifestFormat = 'docker' | 'oci'

export interface Platform {
  os: string
  architecture: string
  variant?: string
}

/** As in Docker's image config: durations in nanoseconds. */
export interface Healthcheck {
  Test: string[]
  Interval?: number
  Timeout?: number
  Retries?: number
  StartPeriod?: number
}

export interface RegistryAuth {
  username: string
  password: string
}

export interface ImageSpec {
  /** host:port of the registry, e.g. env.registry */
  registry: string
  /** repository path, lowercase, e.g. `${prefix}/app` */
  repo: string
  /** default 'latest' */
  tag?: string
  /** content of /marker; a distinct marker gives a distinct image */
  marker?: string
  /** extra files in the marker layer: path (no leading /) -> content */
  files?: Record<string, string | Buffer>
  /** symbolic links in the marker layer: path (no leading /) -> link target (an untrusted image's trick) */
  symlinks?: Record<string, string>
  /** image creation time (config.created); default 2024-01-01T00:00:00Z */
  created?: Date | string
  /** default ['/bin/sleep', '3600'] */
  cmd?: string[]
  entrypoint?: string[]
  /** PATH=/bin is added when no PATH is given */
  env?: string[]
  labels?: Record<string, string>
  healthcheck?: Healthcheck
  stopSignal?: string
  workingDir?: string
  user?: string
  /** default: this machine's (process.arch mapped to Go's names), os linux */
  platform?: Platform
  /** manifest media types: Docker schema2 (default) or OCI */
  format?: ManifestFormat
  /**
   * Wrap in a manifest list (docker) / image index (oci) under the tag. true: this machine's platform
   * plus one other (arm64, or amd64 on arm64). The non-native entries carry the same busybox layer
   * (they will not run; they only have to be there).
   */
  index?: boolean | Platform[]
  /** Basic credentials, for the auth registry */
  auth?: RegistryAuth
  /** OCI annotations on each platform's manifest (an OCI image's version can live here, docs/versions.md) */
  annotations?: Record<string, string>
  /** OCI annotations on the index itself, with `index` */
  indexAnnotations?: Record<string, string>
}

export interface PushedPlatform {
  platform: Platform
  digest: string
  configDigest: string
}

export interface PushedImage {
  /** what the tag points at: the manifest digest, or the index/list digest when `index` was asked */
  digest: string
  /** the config digest of the image for this machine's platform (the image ID Docker shows) */
  configDigest: string
  /** the manifest digest of the image for this machine's platform (=== digest without `index`) */
  manifestDigest: string
  /** media type of what the tag points at */
  mediaType: string
  /** registry/repo:tag */
  ref: string
  /** registry/repo@digest */
  digestRef: string
  registry: string
  repo: string
  tag: string
  /** with `index`: one entry per platform */
  platforms?: PushedPlatform[]
}

export class RegistryError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body?: string,
  ) {
    super(message)
    this.name = 'RegistryError'
  }
}

const DEFAULT_CREATED = '2024-01-01T00:00:00Z'
const MTIME = new Date('2024-01-01T00:00:00Z')
const BUSYBOX_PATHS = ['/bin/busybox', '/usr/bin/busybox'] // Debian busybox-static
export const APPLETS = [
  'sh', 'ash', 'sleep', 'true', 'false', 'cat', 'echo', 'env', 'ls', 'id', 'kill', 'ps', 'printf',
  'test', '[', 'date', 'grep', 'sed', 'head', 'tail', 'wc', 'touch', 'mkdir', 'rm', 'pwd', 'hostname',
  'uname', 'whoami', 'timeout', 'nc', 'wget', 'tr', 'cut', 'sort', 'uniq', 'xargs', 'stat',
] as const

const GO_ARCH: Record<string, Platform> = {
  x64: { os: 'linux', architecture: 'amd64' },
  arm64: { os: 'linux', architecture: 'arm64' },
  arm: { os: 'linux', architecture: 'arm', variant: 'v7' },
  ia32: { os: 'linux', architecture: '386' },
  ppc64: { os: 'linux', architecture: 'ppc64le' },
  s390x: { os: 'linux', architecture: 's390x' },
  riscv64: { os: 'linux', architecture: 'riscv64' },
  loong64: { os: 'linux', architecture: 'loong64' },
}

/** This machine's platform as an image config / OCI index names it. */
export function nativePlatform(): Platform {
  return { ...(GO_ARCH[process.arch] ?? { os: 'linux', architecture: process.arch }) }
}

export function sha256(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`
}

/** A unique, registry- and container-name-safe prefix for one test file: tw-<label>-<random>. */
export function testPrefix(label: string): string {
  const clean = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'test'
  return `tw-${clean}-${randomBytes(3).toString('hex')}`
}

// ---------------------------------------------------------------- layers

interface Layer {
  /** gzip bytes (the blob) */
  blob: Buffer
  digest: string
  /** sha256 of the uncompressed tar */
  diffId: string
}

type TarEntry =
  | { name: string; type: 'directory'; mode?: number }
  | { name: string; type: 'file'; mode?: number; data: Buffer }
  | { name: string; type: 'symlink'; linkname: string }

async function tar(entries: TarEntry[]): Promise<Buffer> {
  const p = pack()
  const chunks: Buffer[] = []
  const done = (async () => {
    for await (const c of p) chunks.push(c as Buffer)
  })()
  for (const e of entries) {
    const header = { name: e.name, mtime: MTIME, uid: 0, gid: 0, uname: 'root', gname: 'root' }
    if (e.type === 'directory') p.entry({ ...header, type: 'directory', mode: e.mode ?? 0o755 })
    else if (e.type === 'symlink') p.entry({ ...header, type: 'symlink', linkname: e.linkname, mode: 0o777 })
    else p.entry({ ...header, type: 'file', mode: e.mode ?? 0o644, size: e.data.length }, e.data)
  }
  p.finalize()
  await done
  return Buffer.concat(chunks)
}

function layer(tarBytes: Buffer): Layer {
  const blob = gzipSync(tarBytes, { level: 6 })
  return { blob, digest: sha256(blob), diffId: sha256(tarBytes) }
}

let busyboxLayer: Promise<Layer> | undefined

async function readBusybox(): Promise<Buffer> {
  for (const p of BUSYBOX_PATHS) {
    try {
      return await readFile(p)
    } catch {}
  }
  throw new Error(`no busybox at ${BUSYBOX_PATHS.join(' or ')}: apt-get install busybox-static`)
}

/** The shared base layer: /bin/busybox, applet symlinks, /etc/passwd, /tmp. Built once per process. */
export function getBusyboxLayer(): Promise<Layer> {
  busyboxLayer ??= (async () => {
    const entries: TarEntry[] = [
      { name: 'bin', type: 'directory' },
      { name: 'bin/busybox', type: 'file', mode: 0o755, data: await readBusybox() },
      ...APPLETS.map((a): TarEntry => ({ name: `bin/${a}`, type: 'symlink', linkname: 'busybox' })),
      { name: 'etc', type: 'directory' },
      { name: 'etc/passwd', type: 'file', data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n') },
      { name: 'etc/group', type: 'file', data: Buffer.from('root:x:0:\nnogroup:x:65534:\n') },
      { name: 'root', type: 'directory', mode: 0o700 },
      { name: 'tmp', type: 'directory', mode: 0o1777 },
    ]
    return layer(await tar(entries))
  })()
  return busyboxLayer
}

async function markerLayer(spec: ImageSpec): Promise<Layer | undefined> {
  const files: Record<string, string | Buffer> = { ...(spec.files ?? {}) }
  if (spec.marker !== undefined) files.marker = spec.marker
  const links = spec.symlinks ?? {}
  const names = [...Object.keys(files), ...Object.keys(links)].sort()
  if (names.length === 0) return undefined
  const entries: TarEntry[] = []
  const dirs = new Set<string>()
  for (const raw of names) {
    const name = raw.replace(/^\/+/, '')
    const parts = name.split('/')
    for (let i = 1; i < parts.length; i++) {
      const d = parts.slice(0, i).join('/')
      if (!dirs.has(d)) {
        dirs.add(d)
        entries.push({ name: d, type: 'directory' })
      }
    }
    const link = links[raw]
    if (link !== undefined) {
      entries.push({ name, type: 'symlink', linkname: link })
      continue
    }
    const v = files[raw]!
    entries.push({ name, type: 'file', data: Buffer.isBuffer(v) ? v : Buffer.from(v) })
  }
  return layer(await tar(entries))
}

// ---------------------------------------------------------------- build

export interface BuiltManifest {
  platform: Platform
  config: Record<string, unknown>
  configBytes: Buffer
  configDigest: string
  manifest: Buffer
  mediaType: string
  digest: string
  layers: Layer[]
}

function created(spec: ImageSpec): string {
  const c = spec.created ?? DEFAULT_CREATED
  return c instanceof Date ? c.toISOString() : c
}

/** Build (no network) the config and manifest of one platform's image. */
export async function buildManifest(spec: ImageSpec, platform: Platform = spec.platform ?? nativePlatform()): Promise<BuiltManifest> {
  const oci = spec.format === 'oci'
  const layers = [await getBusyboxLayer()]
  const marker = await markerLayer(spec)
  if (marker) layers.push(marker)
  const when = created(spec)
  const env = spec.env ? [...spec.env] : []
  if (!env.some(e => e.startsWith('PATH='))) env.unshift('PATH=/bin')
  const config = {
    architecture: platform.architecture,
    ...(platform.variant ? { variant: platform.variant } : {}),
    os: platform.os,
    created: when,
    config: {
      ...(spec.user ? { User: spec.user } : {}),
      Env: env,
      ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
      Cmd: spec.cmd ?? ['/bin/sleep', '3600'],
      ...(spec.healthcheck ? { Healthcheck: spec.healthcheck } : {}),
      ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
      ...(spec.labels ? { Labels: spec.labels } : {}),
      ...(spec.stopSignal ? { StopSignal: spec.stopSignal } : {}),
    },
    rootfs: { type: 'layers', diff_ids: layers.map(l => l.diffId) },
    history: layers.map((_, i) => ({ created: when, created_by: i === 0 ? 'tidewatch test busybox' : 'tidewatch test marker' })),
  }
  const configBytes = Buffer.from(JSON.stringify(config))
  const configDigest = sha256(configBytes)
  const mediaType = oci ? MEDIA.ociManifest : MEDIA.dockerManifest
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      config: { mediaType: oci ? MEDIA.ociConfig : MEDIA.dockerConfig, size: configBytes.length, digest: configDigest },
      layers: layers.map(l => ({ mediaType: oci ? MEDIA.ociLayer : MEDIA.dockerLayer, size: l.blob.length, digest: l.digest })),
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    }),
  )
  return { platform, config, configBytes, configDigest, manifest, mediaType, digest: sha256(manifest), layers }
}

function indexPlatforms(spec: ImageSpec): Platform[] | undefined {
  if (!spec.index) return undefined
  if (Array.isArray(spec.index)) return spec.index
  const native = spec.platform ?? nativePlatform()
  const other: Platform = native.architecture === 'arm64' ? { os: 'linux', architecture: 'amd64' } : { os: 'linux', architecture: 'arm64', variant: 'v8' }
  return [native, other]
}

function buildIndex(format: ManifestFormat | undefined, entries: BuiltManifest[], annotations?: Record<string, string>): { body: Buffer; mediaType: string } {
  const mediaType = format === 'oci' ? MEDIA.ociIndex : MEDIA.dockerList
  const body = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      manifests: entries.map(m => ({ mediaType: m.mediaType, size: m.manifest.length, digest: m.digest, platform: m.platform })),
      ...(annotations ? { annotations } : {}),
    }),
  )
  return { body, mediaType }
}

// ---------------------------------------------------------------- registry HTTP

function headersFor(auth?: RegistryAuth, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { ...extra }
  if (auth) h.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
  return h
}

async function check(res: Response, ok: number[], what: string): Promise<Response> {
  if (ok.includes(res.status)) return res
  const body = await res.text().catch(() => '')
  throw new RegistryError(`${what}: HTTP ${res.status}${body ? ` ${body.slice(0, 300)}` : ''}`, res.status, body)
}

function assertLoopback(registry: string): void {
  const host = registry.replace(/:\d+$/, '').replace(/^\[|\]$/g, '')
  if (!/^127\.\d+\.\d+\.\d+$/.test(host) && host !== 'localhost' && host !== '::1') {
    throw new Error(`refusing a non-loopback registry: ${registry}`)
  }
}

/** Upload one blob unless the repository already has it (HEAD first). */
export async function pushBlob(registry: string, repo: string, blob: Buffer, digest: string, auth?: RegistryAuth): Promise<void> {
  assertLoopback(registry)
  const base = `http://${registry}/v2/${repo}`
  const head = await fetch(`${base}/blobs/${digest}`, { method: 'HEAD', headers: headersFor(auth) })
  await check(head, [200, 404], `HEAD ${repo} blob ${digest}`)
  if (head.status === 200) return
  const start = await check(await fetch(`${base}/blobs/uploads/`, { method: 'POST', headers: headersFor(auth) }), [202], `start upload to ${repo}`)
  await start.arrayBuffer()
  const location = start.headers.get('location')
  if (!location) throw new RegistryError(`start upload to ${repo}: no Location`, start.status)
  const url = new URL(location, `http://${registry}`)
  url.searchParams.set('digest', digest)
  const put = await fetch(url, {
    method: 'PUT',
    headers: headersFor(auth, { 'content-type': 'application/octet-stream' }),
    body: blob,
  })
  await (await check(put, [201], `upload ${digest} to ${repo}`)).arrayBuffer()
}

/** PUT a manifest (or index) under a tag or digest; returns the registry's Docker-Content-Digest. */
export async function putManifest(registry: string, repo: string, reference: string, body: Buffer, mediaType: string, auth?: RegistryAuth): Promise<string> {
  assertLoopback(registry)
  const res = await fetch(`http://${registry}/v2/${repo}/manifests/${reference}`, {
    method: 'PUT',
    headers: headersFor(auth, { 'content-type': mediaType }),
    body,
  })
  await (await check(res, [201], `PUT ${repo} manifest ${reference}`)).arrayBuffer()
  const digest = res.headers.get('docker-content-digest') ?? sha256(body)
  if (digest !== sha256(body)) throw new Error(`registry stored ${repo}:${reference} as ${digest}, expected ${sha256(body)}`)
  return digest
}

/** DELETE a manifest by digest (the registries run with storage.delete.enabled). */
export async function deleteManifest(registry: string, repo: string, digest: string, auth?: RegistryAuth): Promise<void> {
  assertLoopback(registry)
  const res = await fetch(`http://${registry}/v2/${repo}/manifests/${digest}`, { method: 'DELETE', headers: headersFor(auth) })
  await (await check(res, [202], `DELETE ${repo} manifest ${digest}`)).arrayBuffer()
}

/** Build and push an image (and its index, when asked); returns its digests and reference. */
export async function pushImage(spec: ImageSpec): Promise<PushedImage> {
  const tag = spec.tag ?? 'latest'
  const { registry, repo, auth } = spec
  const platforms = indexPlatforms(spec)
  const builds = platforms ? await Promise.all(platforms.map(p => buildManifest(spec, p))) : [await buildManifest(spec)]

  for (const b of builds) {
    for (const l of b.layers) await pushBlob(registry, repo, l.blob, l.digest, auth)
    await pushBlob(registry, repo, b.configBytes, b.configDigest, auth)
  }
  const native = builds[0]!
  let digest: string
  let mediaType: string
  if (platforms) {
    for (const b of builds) await putManifest(registry, repo, b.digest, b.manifest, b.mediaType, auth)
    const index = buildIndex(spec.format, builds, spec.indexAnnotations)
    mediaType = index.mediaType
    digest = await putManifest(registry, repo, tag, index.body, index.mediaType, auth)
  } else {
    mediaType = native.mediaType
    digest = await putManifest(registry, repo, tag, native.manifest, native.mediaType, auth)
  }
  return {
    digest,
    configDigest: native.configDigest,
    manifestDigest: native.digest,
    mediaType,
    ref: `${registry}/${repo}:${tag}`,
    digestRef: `${registry}/${repo}@${digest}`,
    registry,
    repo,
    tag,
    ...(platforms ? { platforms: builds.map(b => ({ platform: b.platform, digest: b.digest, configDigest: b.configDigest })) } : {}),
  }
}

// The engine side (pull, run, clean up) lives in test/helpers/engine-ops.ts; re-exported for the tests
// that import it from here.
export { pullImage, removeContainers, removeImages, runContainer, type RunOptions } from './engine-ops.js'
