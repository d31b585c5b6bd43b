// Issue 13 part 1 through the real binary against a real single-node Swarm (the test environment's Swarm
// engine, never the shared one): services are checked like containers (one registry request per distinct
// image across containers and services, records with kind "service"), updated by Swarm to the pinned new
// digest, rolled back by Swarm when the service asks for it, left alone when opted out, and their task
// containers are never touched by the docker runtime.
import { EventSource } from 'eventsource'
import t from 'tap'
import { logMark, requireSwarm, swarmDocker, waitFor } from '../helpers/env.js'
import { pullImage, pushImage, removeContainers, runContainer, testPrefix, type PushedImage } from '../helpers/images.js'
import { QUICK_STOP_CMD } from '../helpers/scenarios.js'
import { call, startService } from '../helpers/service.js'
import { createService, removeServices, runningTasks, serviceState, waitForTasks } from '../helpers/swarm.js'

const TOKEN = 'e2e-swarm-token-0123456789'
const EVENTS_TOKEN = 'e2e-swarm-events-token-0123'

interface Record_ {
  name: string
  kind?: string
  host?: string
  image: string
  image_id: string
  digest: string
  update_available: boolean
  latest_digest: string
  update_source: string
  error?: string
}

interface StreamedEvent {
  type: string
  data: Record<string, unknown>
}

const pinned = (image: PushedImage): string => `${image.ref}@${image.digest}`

t.test('Swarm services: checked like containers, updated and rolled back by Swarm, opted-out ones and task containers untouched', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('e2e-swarm')
  t.teardown(async () => {
    await removeServices(engine, prefix)
    await removeContainers(engine, prefix)
  })

  const app = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} app v1`, cmd: QUICK_STOP_CMD })
  const broken = await pushImage({ registry: env.registry, repo: `${prefix}/broken`, marker: `${prefix} broken v1`, cmd: QUICK_STOP_CMD })
  const enabled = { 'tidewatch.enable': 'true' }
  const ids = {
    web: await createService(engine, { name: `${prefix}-web`, image: pinned(app), mode: { replicas: 2 }, labels: enabled, failureAction: 'rollback' }),
    global: await createService(engine, { name: `${prefix}-global`, image: pinned(app), mode: 'global', labels: { 'com.centurylinklabs.watchtower.enable': 'true' } }),
    broken: await createService(engine, { name: `${prefix}-broken`, image: pinned(broken), labels: enabled, failureAction: 'rollback' }),
    optout: await createService(engine, { name: `${prefix}-optout`, image: pinned(app), labels: { 'tidewatch.enable': 'false' } }),
    // Without --swarm a service must opt in: this one is not watched, and its stale task container must not be
    // replaced by the docker runtime either.
    unlabelled: await createService(engine, { name: `${prefix}-unlabelled`, image: pinned(app) }),
  }
  await Promise.all([
    waitForTasks(engine, ids.web, pinned(app), 2),
    waitForTasks(engine, ids.global, pinned(app), 1),
    waitForTasks(engine, ids.broken, pinned(broken), 1),
    waitForTasks(engine, ids.optout, pinned(app), 1),
    waitForTasks(engine, ids.unlabelled, pinned(app), 1),
  ])
  // A plain container of the same image on the same engine: one registry request serves both kinds.
  await pullImage(engine, app.ref)
  await runContainer(engine, { name: `${prefix}-plain`, image: app.ref, cmd: QUICK_STOP_CMD })
  const untouched = {
    optout: await serviceState(engine, ids.optout),
    unlabelled: await serviceState(engine, ids.unlabelled),
    unlabelledTask: (await runningTasks(engine, ids.unlabelled))[0]?.Status.ContainerStatus?.ContainerID,
  }
  t.ok(untouched.unlabelledTask, 'the unlabelled service runs a task container')

  const appV2 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} app v2`, cmd: QUICK_STOP_CMD })
  // The new broken image exits at once: every task of it fails, and the service says to roll back.
  const brokenV2 = await pushImage({ registry: env.registry, repo: `${prefix}/broken`, marker: `${prefix} broken v2`, cmd: ['/bin/sh', '-c', 'exit 1'] })

  const service = await startService([
    '--host', env.swarmDockerHost,
    '--http-api-endpoints', 'check,update,containers,events',
    '--http-api-token', TOKEN,
    '--http-api-events-token', EVENTS_TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '2s',
    '--swarm-poll-interval', '250ms',
    // Names filter containers and services alike; task containers would match it too.
    `${prefix}-.*`,
  ])
  t.teardown(() => service.stop('SIGKILL'))

  // ---- check
  const mark = await logMark(env.registryLog)
  const check = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })
  t.equal(check.status, 200)
  const records = (check.body as { containers: Record_[] }).containers
  t.same(
    records.map((r) => r.name).sort(),
    [`${prefix}-broken`, `${prefix}-global`, `${prefix}-plain`, `${prefix}-web`],
    'one record per watched service and per container; no task container, no opted-out or unlabelled service',
  )
  const byName = new Map(records.map((r) => [r.name, r]))
  for (const name of ['web', 'global']) {
    t.match(byName.get(`${prefix}-${name}`), {
      kind: 'service',
      host: env.swarmDockerHost,
      image: app.ref,
      image_id: app.digest,
      digest: app.digest,
      update_available: true,
      latest_digest: appV2.digest,
      update_source: 'registry',
    }, `${name}: a service record, stale`)
  }
  t.match(byName.get(`${prefix}-broken`), { kind: 'service', digest: broken.digest, latest_digest: brokenV2.digest, update_available: true })
  const plain = byName.get(`${prefix}-plain`)
  t.match(plain, { update_available: true, latest_digest: appV2.digest })
  t.not(plain?.kind, 'service', 'the container is not a service')
  // The registry writes its access-log line after each response: wait for the last image's, then a moment.
  await waitFor(async () => (await mark.read()).some((l) => l.includes(`/v2/${prefix}/broken/manifests/latest `)))
  await new Promise((r) => setTimeout(r, 300))
  const appManifests = (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/app/manifests/`))
  t.equal(appManifests.filter((l) => l.includes('/manifests/latest ')).length, 1, 'one manifest request for the image three targets of two kinds run')
  // Besides, at most one read of the candidate's version, by its digest (docs/versions.md).
  t.ok(appManifests.length <= 2 && appManifests.every((l) => l.includes('/manifests/latest ') || l.includes(`/manifests/${appV2.digest} `)), 'and at most one version read of the candidate')

  const listed = await call(`${service.url}/v1/containers`, { token: TOKEN })
  t.match((listed.body as { containers: Record_[] }).containers.find((c) => c.name === `${prefix}-web`), { kind: 'service', host: env.swarmDockerHost })

  // ---- update
  const events: StreamedEvent[] = []
  const source = new EventSource(`${service.url}/v1/events?access_token=${EVENTS_TOKEN}`)
  t.teardown(() => source.close())
  for (const type of ['update_started', 'update_completed', 'update_failed']) {
    source.addEventListener(type, (message) => events.push(JSON.parse(message.data) as StreamedEvent))
  }
  await new Promise((r) => setTimeout(r, 300))
  const update = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })
  t.equal(update.status, 200)
  t.match(update.body, { summary: { updated: 3, failed: 1, skipped: 0 } }, 'web, global and the container updated; broken failed')

  const failed = await waitFor(() => events.find((e) => e.type === 'update_failed'), 10_000)
  t.match(failed.data, { container: `${prefix}-broken`, kind: 'service', rolled_back: true, error: /rolled the update back/ })
  const completed = events.filter((e) => e.type === 'update_completed')
  t.match(completed.find((e) => e.data['container'] === `${prefix}-web`)?.data, { kind: 'service', new_image_id: appV2.digest })

  const web = await serviceState(engine, ids.web)
  t.equal(web.image, pinned(appV2), 'the replicated service pins the new digest')
  t.equal(web.updateState, 'completed')
  t.equal((await waitForTasks(engine, ids.web, pinned(appV2), 2)).length, 2, 'both replicas run the new digest')
  t.equal((await serviceState(engine, ids.global)).image, pinned(appV2), 'the global service pins the new digest')
  await waitForTasks(engine, ids.global, pinned(appV2), 1)

  const rolledBack = await serviceState(engine, ids.broken)
  t.equal(rolledBack.updateState, 'rollback_completed', 'Swarm rolled the broken service back')
  t.equal(rolledBack.image, pinned(broken), 'to the digest it ran before')
  await waitForTasks(engine, ids.broken, pinned(broken), 1)

  for (const name of ['optout', 'unlabelled'] as const) {
    const now = await serviceState(engine, ids[name])
    t.same({ version: now.version, image: now.image }, { version: untouched[name].version, image: untouched[name].image }, `${name}: untouched`)
  }
  const task = (await runningTasks(engine, ids.unlabelled))[0]?.Status.ContainerStatus?.ContainerID
  t.equal(task, untouched.unlabelledTask, "the docker runtime left the stale task container alone")
  const containers = await engine.listContainers({ all: true })
  t.ok(containers.some((c) => c.Id === untouched.unlabelledTask && c.State === 'running'), 'and it still runs')
  t.notOk(containers.some((c) => c.Names.some((n) => /-tidewatch-|aside|staged/.test(n))), 'no replacement was attempted for a task container')
})
