// Proves the real test environment (scripts/test-env.sh up): the registries take pushed images, the
// private engine pulls them from loopback (plain HTTP) and runs them with no network.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Docker from 'dockerode'
import t from 'tap'
import { docker, logMark, requireEnv, requireTwoEngines, secondDocker, waitFor } from '../helpers/env.js'
import {
  MEDIA,
  RegistryError,
  pullImage,
  pushImage,
  removeContainers,
  removeImages,
  runContainer,
  testPrefix,
} from '../helpers/images.js'

const prefix = testPrefix('env')

t.test('registry: two distinct images under one tag get two digests', async t => {
  const env = await requireEnv(t)
  if (!env) return
  const repo = `${prefix}/distinct`
  const a = await pushImage({ registry: env.registry, repo, tag: 'v1', marker: 'a' })
  const b = await pushImage({ registry: env.registry, repo, tag: 'v1', marker: 'b' })
  t.match(a.digest, /^sha256:[0-9a-f]{64}$/)
  t.match(b.digest, /^sha256:[0-9a-f]{64}$/)
  t.not(a.digest, b.digest, 'a new image under the same tag has a new digest')
  t.not(a.configDigest, b.configDigest)
  t.equal(a.ref, `${env.registry}/${repo}:v1`)

  // The tag now resolves to b, as a registry client would see it.
  const res = await fetch(`http://${env.registry}/v2/${repo}/manifests/v1`, {
    method: 'HEAD',
    headers: { accept: MEDIA.dockerManifest },
  })
  t.equal(res.status, 200)
  t.equal(res.headers.get('docker-content-digest'), b.digest)

  // Same spec, same digest: images are deterministic.
  const again = await pushImage({ registry: env.registry, repo, tag: 'v1', marker: 'b' })
  t.equal(again.digest, b.digest)
})

t.test('registry: access log records requests', async t => {
  const env = await requireEnv(t)
  if (!env) return
  const repo = `${prefix}/logged`
  const mark = await logMark(env.registryLog)
  await pushImage({ registry: env.registry, repo, tag: 'x' })
  const lines = await waitFor(async () => {
    const l = await mark.read()
    return l.some(x => x.includes(`PUT /v2/${repo}/manifests/x `)) ? l : undefined
  })
  t.ok(lines.some(l => l.includes(`POST /v2/${repo}/blobs/uploads/`)), 'blob upload logged')
})

t.test('engine: pulls from 127.0.0.1, runs with --network none, keeps the pushed digest', async t => {
  const env = await requireEnv(t)
  if (!env) return
  const d = docker(env)
  const repo = `${prefix}/run`
  t.teardown(async () => {
    await removeContainers(d, prefix)
    await removeImages(d, `/${prefix}/`)
  })
  const img = await pushImage({
    registry: env.registry,
    repo,
    tag: 'latest',
    marker: 'run',
    labels: { 'org.opencontainers.image.revision': 'abc123' },
    env: ['GREETING=hello'],
  })
  await pullImage(d, img.ref)

  const c = await runContainer(d, { name: `${prefix}-run`, image: img.ref, labels: { 'tidewatch.test': prefix } })
  const info = await c.inspect()
  t.equal(info.State.Status, 'running')
  t.equal(info.HostConfig.NetworkMode, 'none')
  t.equal(info.Config.Labels['org.opencontainers.image.revision'], 'abc123', 'image labels reach the container')
  t.ok(info.Config.Env.includes('GREETING=hello'))

  const image = await d.getImage(img.ref).inspect()
  t.equal(image.Id, img.configDigest, 'image ID is the config digest')
  t.ok(image.RepoDigests.includes(`${env.registry}/${repo}@${img.digest}`), 'RepoDigests has the pushed digest')

  // busybox works inside: the marker layer is there.
  const exec = await c.exec({ Cmd: ['/bin/cat', '/marker'], AttachStdout: true, AttachStderr: true })
  const stream = await exec.start({ hijack: true, stdin: false })
  const out = await new Promise<string>(resolve => {
    const chunks: Buffer[] = []
    stream.on('data', (b: Buffer) => chunks.push(b))
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
  t.match(out, /run$/)
})

t.test('engine: pulls an OCI index (multi-arch) and picks its own platform', async t => {
  const env = await requireEnv(t)
  if (!env) return
  const d = docker(env)
  const repo = `${prefix}/multi`
  t.teardown(() => removeImages(d, `/${prefix}/multi`))
  const img = await pushImage({ registry: env.registry, repo, tag: 'multi', marker: 'multi', format: 'oci', index: true })
  t.equal(img.mediaType, MEDIA.ociIndex)
  t.equal(img.platforms?.length, 2)
  t.not(img.digest, img.manifestDigest, 'the tag points at the index')
  await pullImage(d, img.ref)
  const image = await d.getImage(img.ref).inspect()
  t.equal(image.Id, img.configDigest, 'the native platform was pulled')
  t.ok(image.RepoDigests.includes(`${env.registry}/${repo}@${img.digest}`), 'RepoDigests has the index digest')
})

t.test('auth registry: 401 without credentials, push and pull with them', async t => {
  const env = await requireEnv(t)
  if (!env) return
  const d = docker(env)
  const repo = `${prefix}/private`
  t.teardown(() => removeImages(d, `/${prefix}/private`))

  const err = await pushImage({ registry: env.authRegistry, repo, marker: 'p' }).then(
    () => undefined,
    (e: unknown) => e,
  )
  t.ok(err instanceof RegistryError, 'push without credentials fails')
  t.equal((err as RegistryError).status, 401)

  const auth = { username: env.authUser, password: env.authPassword }
  const img = await pushImage({ registry: env.authRegistry, repo, marker: 'p', auth })
  t.match(img.digest, /^sha256:/)

  const wrong = await pushImage({ registry: env.authRegistry, repo, marker: 'q', auth: { ...auth, password: 'nope' } }).then(
    () => undefined,
    (e: unknown) => e,
  )
  t.equal((wrong as RegistryError).status, 401, 'wrong password is refused')

  await t.rejects(pullImage(d, img.ref), 'the engine cannot pull without credentials')
  await pullImage(d, img.ref, auth)
  const image = await d.getImage(img.ref).inspect()
  t.ok(image.RepoDigests.includes(`${env.authRegistry}/${repo}@${img.digest}`))
})

t.test('second engine: TLS on loopback TCP, a client certificate required, pulls from 127.0.0.1 and runs', async t => {
  const env = await requireTwoEngines(t)
  if (!env) return
  const d = secondDocker(env)
  t.teardown(async () => {
    await removeContainers(d, `${prefix}-second`)
    await removeImages(d, `/${prefix}/second`)
  })
  t.match(env.secondDockerHost, /^tcp:\/\/127\.0\.0\.1:\d+$/)
  // Without a client certificate the engine refuses the TLS handshake.
  const port = Number(new URL(env.secondDockerHost.replace(/^tcp:/, 'https:')).port)
  const anonymous = new Docker({ protocol: 'https', host: '127.0.0.1', port, ca: readFileSync(join(env.secondCertPath, 'ca.pem')) })
  await t.rejects(anonymous.ping(), 'no client certificate, no answer')

  const info = await d.info()
  const first = await docker(env).info()
  // (Not the ID: dockerd reads it from /etc/docker, which both engines share.)
  t.not(info.DockerRootDir, first.DockerRootDir, 'a distinct engine, with its own data root')

  const img = await pushImage({ registry: env.registry, repo: `${prefix}/second`, marker: 'second' })
  await pullImage(d, img.ref)
  const c = await runContainer(d, { name: `${prefix}-second`, image: img.ref, labels: { 'tidewatch.test': prefix } })
  t.equal((await c.inspect()).State.Status, 'running')
  t.equal((await docker(env).listContainers({ all: true, filters: { name: [`${prefix}-second`] } })).length, 0, 'not on the first engine')
})
