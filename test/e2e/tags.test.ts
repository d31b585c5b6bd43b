// Tag policies through the real binary against the real engine, registry and Swarm (docs/tags.md): patch,
// minor, major and pin each behave as specified; the update moves containers to the new tag (pulled by the
// digest the check resolved); a new tag whose image exits at start is rolled back to the old reference;
// a container on the default policy makes the registry requests it made before; a Swarm service moves to
// a new tag, pinned.
import t from 'tap'
import { logMark, requireSwarm, swarmDocker, waitFor } from '../helpers/env.js'
import { pullImage, pushImage, removeContainers, runContainer, testPrefix, type PushedImage } from '../helpers/images.js'
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js'
import { call, runBinary, startService } from '../helpers/service.js'
import { createService, removeServices, serviceState, waitForTasks } from '../helpers/swarm.js'

const TOKEN = 'e2e-tags-token-0123456789'

interface CheckRecord {
  name: string
  update_available: boolean
  latest_digest: string
  tag_policy?: string
  current_tag?: string
  latest_tag?: string
  update_kind?: string
  note?: string
}

t.test('--tag-policy with a bad value exits 2 naming the option', async (t) => {
  const bad = await runBinary(['--tag-policy', 'weekly', '--run-once'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--tag-policy/)
  const badEnv = await runBinary(['--run-once'], { TIDEWATCH_TAG_POLICY: 'often' })
  t.equal(badEnv.code, 2)
  t.match(badEnv.stderr, /--tag-policy \(TIDEWATCH_TAG_POLICY\)/)
})

t.test('patch, minor, major and pin; the update moves to the new tag; a crashing new tag is rolled back', async (t) => {
  const s = await scenario(t, 'e2e-tags')
  if (!s) return
  const { env, engine, prefix } = s
  const repo = `${prefix}/app`
  const push = (tag: string, marker = `${prefix} ${tag}`) => pushImage({ registry: env.registry, repo, tag, marker, cmd: QUICK_STOP_CMD })
  const v100 = await push('1.0.0')
  await pullImage(engine, v100.ref)
  const run = (name: string, policy: string, image = v100.ref) =>
    runContainer(engine, { name: `${prefix}-${name}`, image, labels: { 'tidewatch.tag.policy': policy }, restartPolicy: 'unless-stopped' })
  for (const policy of ['patch', 'minor', 'major', 'pin']) await run(policy, policy)
  const plain = await pushImage({ registry: env.registry, repo: `${prefix}/plain`, marker: `${prefix} plain`, cmd: QUICK_STOP_CMD })
  await pullImage(engine, plain.ref)
  await runContainer(engine, { name: `${prefix}-plain`, image: plain.ref })
  // A repository whose next patch exits at once.
  const bad100 = await pushImage({ registry: env.registry, repo: `${prefix}/bad`, tag: '1.0.0', marker: `${prefix} bad`, cmd: QUICK_STOP_CMD })
  await pullImage(engine, bad100.ref)
  const badOld = await runContainer(engine, { name: `${prefix}-bad`, image: bad100.ref, labels: { 'tidewatch.tag.policy': 'patch' }, restartPolicy: 'unless-stopped' })
  await pushImage({ registry: env.registry, repo: `${prefix}/bad`, tag: '1.0.1', marker: `${prefix} bad next`, cmd: ['/bin/sh', '-c', 'exit 3'] })

  const v101 = await push('1.0.1')
  const v110 = await push('1.1.0')
  const v200 = await push('2.0.0')
  await push('2.1.0-rc.1')
  // The pinned container's own tag moves too: pin must not follow even that.
  const v100b = await push('1.0.0', `${prefix} 1.0.0 rebuilt`)

  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'check,update,containers',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    '--registry-tls-skip',
    `${prefix}-.*`,
  ])
  t.teardown(() => service.stop('SIGKILL'))

  const mark = await logMark(env.registryLog)
  const check = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })
  t.equal(check.status, 200)
  const byName = new Map((check.body as { containers: CheckRecord[] }).containers.map((r) => [r.name.slice(prefix.length + 1), r]))
  t.match(byName.get('patch'), { update_available: true, tag_policy: 'patch', current_tag: '1.0.0', latest_tag: '1.0.1', update_kind: 'patch', latest_digest: v101.digest })
  t.match(byName.get('minor'), { update_available: true, latest_tag: '1.1.0', update_kind: 'minor', latest_digest: v110.digest })
  t.match(byName.get('major'), { update_available: true, latest_tag: '2.0.0', update_kind: 'major', latest_digest: v200.digest }, 'not the pre-release')
  t.match(byName.get('pin'), { update_available: false, tag_policy: 'pin', current_tag: '1.0.0' })
  t.notOk(byName.get('pin')?.latest_tag)
  const plainRecord = byName.get('plain') ?? {}
  t.notOk('tag_policy' in plainRecord, 'the default policy: the record of before')

  // Costs, from the registry's own access log: one tag-list walk for the four containers of the repository,
  // none and one HEAD for the default container (as before tag policies), nothing at all for pin.
  await waitFor(async () => (await mark.read()).some((l) => l.includes(`/v2/${prefix}/plain/manifests/latest `)))
  await new Promise((r) => setTimeout(r, 300))
  const lines = await mark.read()
  t.equal(lines.filter((l) => l.includes(`/v2/${repo}/tags/list`)).length, 1, 'one tag-list walk per repository per run')
  t.same(lines.filter((l) => l.includes(`/v2/${prefix}/plain/`)).map((l) => /"(\w+) (\S+)/.exec(l)?.slice(1).join(' ')), [`HEAD /v2/${prefix}/plain/manifests/latest`], 'the default container: one HEAD, as before')
  t.equal(lines.filter((l) => l.includes(`/v2/${repo}/manifests/`)).length, 3, 'one manifest GET per candidate tried (1.0.1, 1.1.0, 2.0.0), none for pin')

  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })
  t.equal(update.status, 200)
  t.match(update.body, { summary: { updated: 3, failed: 1 } })
  for (const [name, image] of [['patch', v101], ['minor', v110], ['major', v200]] as [string, PushedImage][]) {
    const info = await engine.getContainer(`${prefix}-${name}`).inspect()
    t.equal(info.Config.Image, image.ref, `${name}: recreated on ${image.tag}`)
    t.equal(info.Image, image.configDigest, `${name}: runs that tag's image`)
    t.ok(info.State.Running, `${name}: running`)
    t.same(info.Config.Labels['tidewatch.tag.policy'], name, `${name}: its labels kept`)
  }
  const pinned = await engine.getContainer(`${prefix}-pin`).inspect()
  t.equal(pinned.Config.Image, v100.ref)
  t.equal(pinned.Image, v100.configDigest, 'pin: not even the moved digest of its own tag')
  t.not(v100b.configDigest, v100.configDigest)
  const bad = await engine.getContainer(`${prefix}-bad`).inspect()
  t.equal(bad.Id, badOld.id, 'the crashing tag: the old container is back')
  t.equal(bad.Config.Image, bad100.ref, 'on the old reference')
  t.ok(bad.State.Running, 'running')

  // Afterwards: nothing newer within each policy.
  const again = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })
  const after = new Map((again.body as { containers: CheckRecord[] }).containers.map((r) => [r.name.slice(prefix.length + 1), r]))
  t.match(after.get('patch'), { update_available: false, current_tag: '1.0.1' })
  t.match(after.get('major'), { update_available: false, current_tag: '2.0.0' })
})

t.test('a Swarm service moves to a new tag, pinned', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('e2e-tags-swarm')
  t.teardown(async () => {
    await removeServices(engine, prefix)
    await removeContainers(engine, prefix)
  })
  const repo = `${prefix}/app`
  const v1 = await pushImage({ registry: env.registry, repo, tag: '3.1.0', marker: `${prefix} 3.1.0`, cmd: QUICK_STOP_CMD })
  const id = await createService(engine, { name: `${prefix}-web`, image: `${v1.ref}@${v1.digest}`, labels: { 'tidewatch.enable': 'true', 'tidewatch.tag.policy': 'minor' } })
  await waitForTasks(engine, id, `${v1.ref}@${v1.digest}`, 1)
  const v2 = await pushImage({ registry: env.registry, repo, tag: '3.2.0', marker: `${prefix} 3.2.0`, cmd: QUICK_STOP_CMD })
  await pushImage({ registry: env.registry, repo, tag: '4.0.0', marker: `${prefix} 4.0.0`, cmd: QUICK_STOP_CMD })

  const service = await startService([
    '--host', env.swarmDockerHost,
    '--http-api-endpoints', 'check,update',
    '--http-api-token', TOKEN,
    '--swarm-poll-interval', '250ms',
    `${prefix}-.*`,
  ])
  t.teardown(() => service.stop('SIGKILL'))
  const check = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })
  t.match((check.body as { containers: CheckRecord[] }).containers[0], { name: `${prefix}-web`, update_available: true, latest_tag: '3.2.0', update_kind: 'minor', latest_digest: v2.digest })
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })
  t.match(update.body, { summary: { updated: 1, failed: 0 } })
  const pinned = `${v2.ref}@${v2.digest}`
  t.equal((await serviceState(engine, id)).image, pinned, 'the service image is repo:3.2.0@<the digest the check resolved>')
  await waitForTasks(engine, id, pinned, 1)
})
