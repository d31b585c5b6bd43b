// Registry mirrors through the real binary (docs/registry-mirrors.md, issue 33): the second engine of the test
// environment runs with two `--registry-mirror`s, real Distribution registries: a plain one holding `library/…`
// images pushed to it, and one in Distribution's proxy mode (a pull-through cache) in front of a local registry
// standing in for Docker Hub. Containers start from Docker Hub names, pulled by the engine through the mirrors.
// Docker Hub itself is never contacted: the binary runs with test/helpers/loopback-dns.mjs, which resolves every
// name to 127.0.0.1, so Tidewatch's Hub fallback is refused on loopback (and the DNS log shows it was meant for Hub).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { secondDocker } from '../helpers/env.js'
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js'
import { mirrorRegistries, requireMirrors } from '../helpers/mirror-registries.js'
import { QUICK_STOP_CMD } from '../helpers/scenarios.js'
import { call, startService } from '../helpers/service.js'

const TOKEN = 'e2e-mirrors-token-0123456789'
const LOOPBACK_DNS = fileURLToPath(new URL('../helpers/loopback-dns.mjs', import.meta.url))

interface CheckRecord {
  name: string
  update_available: boolean
  latest_digest?: string
  error?: string
  note?: string
}

t.test('Docker Hub names are checked through the engine mirrors; a mirror alone never says up to date', async (t) => {
  const env = await requireMirrors(t)
  if (!env) return
  const engine = secondDocker(env)
  const prefix = testPrefix('mirrors')
  const registries = await mirrorRegistries(t, env)
  const scratch = mkdtempSync(join(tmpdir(), 'tw-mirrors-'))
  const dnsLog = join(scratch, 'dns.log')
  t.teardown(async () => {
    await removeContainers(engine, prefix)
    await removeImages(engine, prefix)
    rmSync(scratch, { recursive: true, force: true })
  })
  // Distribution's proxy mode reaches its upstream at start-up: the stand-in first.
  await Promise.all([registries.plain.start(), registries.hub.start()])
  await registries.proxy.start()

  // `plain` lives on the plain mirror, `proxied` only upstream of the proxy: the engine pulls it through the proxy
  // after the plain mirror's 404, as Tidewatch asks.
  const plain = { name: `${prefix}-plain`, repo: `library/${prefix}-plain` }
  const proxied = { name: `${prefix}-proxied`, repo: `library/${prefix}-proxied` }
  const push = (registry: string, repo: string, marker: string) => pushImage({ registry, repo, tag: '1', marker, cmd: QUICK_STOP_CMD })
  await push(registries.plain.address, plain.repo, 'v1')
  await push(registries.hub.address, proxied.repo, 'v1')
  for (const c of [plain, proxied]) {
    await pullImage(engine, `${c.name}:1`)
    await runContainer(engine, { name: c.name, image: `${c.name}:1`, cmd: QUICK_STOP_CMD })
  }

  const service = await startService(
    [
      '--host', `${env.secondDockerHost}?tlsverify=1&cert-path=${env.secondCertPath}`,
      '--http-api-endpoints', 'update,check',
      '--http-api-token', TOKEN,
      '--update-grace-period', '0',
      '--stop-timeout', '5s',
      `${prefix}-.*`,
    ],
    { NODE_OPTIONS: `--import=${LOOPBACK_DNS}`, TIDEWATCH_TEST_DNS_LOG: dnsLog },
  )
  t.teardown(() => service.stop('SIGKILL'))
  const check = async (): Promise<Map<string, CheckRecord>> => {
    const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })
    if (res.status !== 200) throw new Error(`check answered ${res.status}: ${res.text}`)
    return new Map((res.body as { containers: CheckRecord[] }).containers.map((r) => [r.name, r]))
  }
  const hubLookups = () => readFileSync(dnsLog, 'utf8').split('\n').filter((l) => l === 'registry-1.docker.io').length

  // Both mirrors serve the running digests and Docker Hub cannot confirm them: an error, not "up to date".
  let records = await check()
  for (const [c, mirror] of [[plain, registries.plain], [proxied, registries.proxy]] as const) {
    const r = records.get(c.name)
    t.equal(r?.update_available, false, `${c.name}: nothing newer`)
    t.match(r?.error, `registry mirror http://${mirror.address} serves the running digest`, `${c.name}: unconfirmed, never up to date`)
    t.match(r?.error, /Docker Hub could not confirm it \(GET https:\/\/registry-1\.docker\.io\/v2\/ failed: connect ECONNREFUSED 127\.0\.0\.1:443\)/)
  }
  t.ok(hubLookups() > 0, 'Docker Hub was asked (and refused on loopback)')

  // A new image on each mirror is found (without Docker Hub's word: test/plugins/registry/mirrors.test.ts), and the
  // update pulls it through the mirrors.
  const plainV2 = await push(registries.plain.address, plain.repo, 'v2')
  const proxiedV2 = await push(registries.hub.address, proxied.repo, 'v2')
  records = await check()
  t.same(
    [plain, proxied].map((c) => [records.get(c.name)?.update_available, records.get(c.name)?.latest_digest, records.get(c.name)?.error]),
    [[true, plainV2.digest, undefined], [true, proxiedV2.digest, undefined]],
    'the newer digests, from the plain mirror and through the pull-through cache',
  )
  t.equal(records.get(proxied.name)?.note, `newer digest found on registry mirror http://${registries.proxy.address}`, 'the record names the mirror')
  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { summary: { updated: 2, failed: 0 } }, res.text)
  for (const [c, v2] of [[plain, plainV2], [proxied, proxiedV2]] as const) {
    t.equal((await engine.getContainer(c.name).inspect()).Image, v2.configDigest, `${c.name} runs v2, pulled by the engine through its mirrors`)
  }

  // The fork's bug #2409: Docker Hub (here the proxy's upstream) moved the tag, but the pull-through cache cannot
  // reach it and serves the digest it cached, the running one. Never "up to date".
  await push(registries.hub.address, proxied.repo, 'v3')
  await registries.hub.stop()
  records = await check()
  t.equal(records.get(proxied.name)?.update_available, false)
  t.match(records.get(proxied.name)?.error, `registry mirror http://${registries.proxy.address} serves the running digest`, 'a stale cache is an error, not up to date')

  // Every mirror down, Docker Hub unreachable: an error naming them, never "up to date".
  await registries.plain.stop()
  await registries.proxy.stop()
  records = await check()
  for (const c of [plain, proxied]) {
    const r = records.get(c.name)
    t.equal(r?.update_available, false)
    t.match(r?.error, /^every registry mirror failed \(.*ECONNREFUSED.*\), and Docker Hub: .*ECONNREFUSED 127\.0\.0\.1:443/, `${c.name}: mirrors down is an error`)
  }
})
