// docs/swarm.md's records, failed candidates, paused updates and rollback on demand, through the real binary
// against the test environment's single-node Swarm: after an update the service's record says up to date at
// once; a candidate Swarm rolled back is not tried again; a service Swarm paused is reported at every check;
// a rollback on demand goes through Swarm's own rollback and leaves the service held.
import t from 'tap'
import { requireSwarm, swarmDocker } from '../helpers/env.js'
import { pushImage, removeContainers, testPrefix, type PushedImage } from '../helpers/images.js'
import { QUICK_STOP_CMD } from '../helpers/scenarios.js'
import { call, startService, type RunningService } from '../helpers/service.js'
import { createService, removeServices, serviceState, waitForTasks } from '../helpers/swarm.js'

const TOKEN = 'e2e-swarm-state-token-012345'

interface View {
  name: string
  state: string
  digest: string
  update_available?: boolean
  latest_digest?: string
  check_error?: string
  held?: boolean
  rollback_available?: boolean
  failed_candidate?: { digest: string; reason: string }
}

const pinned = (image: PushedImage): string => `${image.ref}@${image.digest}`

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN })

async function view(service: RunningService, name: string): Promise<View | undefined> {
  const body = (await call(`${service.url}/v1/containers`, { token: TOKEN })).body as { containers: View[] }
  return body.containers.find((c) => c.name === name)
}

t.test('Swarm services: fresh records after an update, failed candidates, paused updates, rollback through Swarm', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('e2e-swarm-state')
  t.teardown(async () => {
    await removeServices(engine, prefix)
    await removeContainers(engine, prefix)
  })
  const enabled = { 'tidewatch.enable': 'true' }
  const push = (name: string, marker: string, cmd = QUICK_STOP_CMD) =>
    pushImage({ registry: env.registry, repo: `${prefix}/${name}`, marker: `${prefix} ${name} ${marker}`, cmd })
  const app = await push('app', 'v1')
  const broken = await push('broken', 'v1')
  const paused = await push('paused', 'v1')
  const names = { web: `${prefix}-web`, broken: `${prefix}-broken`, paused: `${prefix}-paused` }
  const ids = {
    web: await createService(engine, { name: names.web, image: pinned(app), labels: enabled, failureAction: 'rollback' }),
    broken: await createService(engine, { name: names.broken, image: pinned(broken), labels: enabled, failureAction: 'rollback' }),
    // Swarm's default failure action: a failed update stops half done.
    paused: await createService(engine, { name: names.paused, image: pinned(paused), labels: enabled, failureAction: 'pause' }),
  }
  await Promise.all([
    waitForTasks(engine, ids.web, pinned(app), 1),
    waitForTasks(engine, ids.broken, pinned(broken), 1),
    waitForTasks(engine, ids.paused, pinned(paused), 1),
  ])
  const appV2 = await push('app', 'v2')
  const brokenV2 = await push('broken', 'v2', ['/bin/sh', '-c', 'exit 1'])
  await push('paused', 'v2', ['/bin/sh', '-c', 'exit 1'])

  const service = await startService([
    '--host', env.swarmDockerHost, '--http-api-endpoints', 'check,update,containers,rollback,audit', '--http-api-token', TOKEN,
    '--update-grace-period', '1s', '--stop-timeout', '2s', '--swarm-poll-interval', '250ms', `${prefix}-.*`,
  ])
  t.teardown(() => service.stop('SIGKILL'))

  t.equal((await post(service, `/v1/rollback?container=${names.web}`)).status, 404, 'never updated: no rollback')
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1, failed: 2 } }, 'web updated; broken rolled back, paused paused')

  // The service keeps its id across the update: its record is refreshed, not left stale.
  const web = await view(service, names.web)
  t.match(web, { digest: appV2.digest, update_available: false, latest_digest: appV2.digest, rollback_available: true }, 'web: up to date at once, rollback listed')
  t.match(await view(service, names.broken), { failed_candidate: { digest: brokenV2.digest, reason: /rolled the update back/ } })
  t.equal((await serviceState(engine, ids.paused)).updateState, 'paused', 'Swarm paused the update')
  t.match(await view(service, names.paused), { state: 'update paused' }, 'listed as paused, not running')

  const second = await post(service, '/v1/update')
  t.match(second.body, { summary: { updated: 0, skipped: 1 } }, 'the broken candidate is not tried again')
  const check = (await post(service, '/v1/check')).body as { containers: (View & { error?: string })[] }
  t.match(check.containers.find((c) => c.name === names.paused), { error: /Swarm paused the update of this service/ }, 'every check says the service is paused')
  t.match(await view(service, names.paused), { check_error: /Swarm paused the update/ })
  t.equal((await serviceState(engine, ids.broken)).image, pinned(broken), 'broken still on its own digest')

  // Rollback on demand through Swarm: back on the previous spec, held.
  const rolled = await post(service, `/v1/rollback?container=${names.web}`)
  t.equal(rolled.status, 200, rolled.text)
  t.match(rolled.body, { summary: { updated: 1, failed: 0 }, from: { image_id: appV2.digest }, to: { image_id: app.digest } })
  t.equal((await serviceState(engine, ids.web)).image, pinned(app), 'the service runs its previous digest again')
  await waitForTasks(engine, ids.web, pinned(app), 1)
  t.match(await view(service, names.web), { held: true, digest: app.digest })
  t.notOk((await view(service, names.web))?.rollback_available, 'nothing more to roll back')
  t.match((await post(service, `/v1/update?container=${names.web}`)).body, { summary: { updated: 0, skipped: 1 } }, 'the hold keeps it there')
})
