// The swarm runtime plugin against the real Swarm engine of the test environment, through a real Tidewatch:
// which services are targets (the opt-in label without --swarm, every service with it, enable=false, scope,
// names), what a check says of them (monitor-only, no-pull, an unpinned spec), an update of a service scaled to
// zero (nothing for Swarm to replace: done once the spec pins the new digest), the registry credentials
// handed to the nodes with the update, a paused update and one that outlasts --swarm-update-timeout. Services
// run no task here unless a step needs one, to stay quick.
import t from 'tap'
import { createTidewatch, type Target } from '../../../core/index.js'
import { dockerPlugin } from '../../../plugins/docker/index.js'
import { noPullPlugin } from '../../../plugins/no-pull/index.js'
import { registryPlugin } from '../../../plugins/registry/index.js'
import { swarmPlugin, type SwarmPluginOptions } from '../../../plugins/swarm/index.js'
import { requireSwarm, swarmDocker, type SwarmTestEnv } from '../../helpers/env.js'
import { pushImage, testPrefix, type PushedImage } from '../../helpers/images.js'
import { QUICK_STOP_CMD } from '../../helpers/scenarios.js'
import { createService, removeServices, serviceState, waitForTasks } from '../../helpers/swarm.js'

const pinned = (image: PushedImage): string => `${image.ref}@${image.digest}`

function tidewatch(env: SwarmTestEnv, swarm: SwarmPluginOptions, registry: Record<string, string> = {}) {
  return createTidewatch({
    plugins: [
      // The server hands both runtimes the one names option; other test files' containers share the engine.
      { plugin: dockerPlugin, options: { host: env.swarmDockerHost, names: swarm.names ?? [] } },
      { plugin: swarmPlugin, options: { pollIntervalMs: 200, ...swarm } },
      noPullPlugin,
      { plugin: registryPlugin, options: registry },
    ],
  })
}

t.test('selection, checks and an update of services', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('swarm-plugin')
  t.teardown(() => removeServices(engine, prefix))
  const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v1` })
  const on = { 'tidewatch.enable': 'true' }
  const zero = { replicas: 0 }
  const specs = {
    plain: {},
    on,
    off: { 'tidewatch.enable': 'false' },
    blue: { ...on, 'tidewatch.scope': 'blue' },
    watch: { 'com.centurylinklabs.watchtower.enable': 'true', 'com.centurylinklabs.watchtower.monitor-only': 'true' },
    nopull: { ...on, 'tidewatch.no-pull': 'true' },
  }
  const ids: Record<string, string> = {}
  for (const [name, labels] of Object.entries(specs)) {
    ids[name] = await createService(engine, { name: `${prefix}-${name}`, image: pinned(v1), mode: zero, labels })
  }
  ids['unpinned'] = await createService(engine, { name: `${prefix}-unpinned`, image: v1.ref, mode: zero, labels: on })
  const v2 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v2` })

  const names = (targets: readonly Target[]) => targets.filter((x) => x.runtime === 'swarm').map((x) => x.name.slice(prefix.length + 1)).sort()
  const targetsWith = async (options: SwarmPluginOptions) => {
    const tw = await tidewatch(env, { names: [`${prefix}-.*`], ...options })
    try {
      return await tw.targets()
    } finally {
      await tw.close()
    }
  }

  const opted = await targetsWith({})
  t.same(names(opted), ['nopull', 'on', 'unpinned', 'watch'], 'without --swarm: the services labelled enable=true, unscoped')
  t.match(opted.find((x) => x.name === `${prefix}-on`), {
    runtime: 'swarm',
    kind: 'service',
    host: env.swarmDockerHost,
    id: ids['on'],
    image: v1.ref,
    imageId: v1.digest,
    repoDigests: [`${env.registry}/${prefix}/app@${v1.digest}`],
    labels: on,
  })
  t.same(names(await targetsWith({ swarm: true })), ['nopull', 'on', 'plain', 'unpinned', 'watch'], '--swarm: every service but enable=false')
  t.same(names(await targetsWith({ swarm: true, labelEnable: true })), ['nopull', 'on', 'unpinned', 'watch'])
  t.same(names(await targetsWith({ scope: 'blue' })), ['blue'])
  t.same(names(await targetsWith({ swarm: true, disableContainers: [`${prefix}-(plain|on)`] })), ['nopull', 'unpinned', 'watch'])

  const tw = await tidewatch(env, { names: [`${prefix}-.*`], swarm: true })
  t.teardown(() => tw.close())
  const check = await tw.check()
  const staleness = new Map(check.results.map((r) => [r.target.name.slice(prefix.length + 1), r.staleness]))
  t.match(staleness.get('on'), { source: 'registry', stale: true, currentDigest: v1.digest, latestDigest: v2.digest })
  t.match(staleness.get('watch'), { stale: true }, 'monitor-only is checked')
  t.match(staleness.get('nopull'), { stale: false, unchecked: true }, 'no-pull: left alone, unchecked')
  t.equal(staleness.get('nopull')?.error, undefined)
  // Nothing pinned (a service created with --no-resolve-image): its current digest cannot be known, and such a
  // target is never reported up to date (docs/engines.md): a check error says so.
  t.match(staleness.get('unpinned'), { stale: false, error: /current digest cannot be known/ }, 'nothing pinned: an error, never up to date')

  const report = await tw.update()
  const outcome = new Map(report.results.map((r) => [r.target.name.slice(prefix.length + 1), r]))
  t.match(outcome.get('on'), { outcome: 'updated', oldImageId: v1.digest, newImageId: v2.digest })
  t.match(outcome.get('plain'), { outcome: 'updated' })
  t.notOk(outcome.has('watch'), 'monitor-only: not applied')
  t.notOk(outcome.has('nopull'))
  t.match(outcome.get('unpinned'), { outcome: 'failed', error: /current digest cannot be known/ })
  t.match(report.summary, { updated: 2, failed: 1 })
  t.equal((await serviceState(engine, ids['on'] as string)).image, pinned(v2), 'the spec pins the new digest')
  t.equal((await serviceState(engine, ids['plain'] as string)).image, pinned(v2))
  for (const name of ['watch', 'nopull', 'off', 'blue', 'unpinned']) {
    const state = await serviceState(engine, ids[name] as string)
    t.equal(state.image, name === 'unpinned' ? v1.ref : pinned(v1), `${name}: spec unchanged`)
  }
})

t.test('the update hands the nodes the registry credentials (X-Registry-Auth)', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('swarm-auth')
  t.teardown(() => removeServices(engine, prefix))
  const auth = { username: env.authUser, password: env.authPassword }
  const v1 = await pushImage({ registry: env.authRegistry, repo: `${prefix}/app`, marker: `${prefix} v1`, cmd: QUICK_STOP_CMD, auth })
  // Created without credentials and scaled to zero: the service holds none, and no node has pulled anything.
  const id = await createService(engine, { name: `${prefix}-app`, image: pinned(v1), mode: { replicas: 0 }, labels: { 'tidewatch.enable': 'true' } })
  const v2 = await pushImage({ registry: env.authRegistry, repo: `${prefix}/app`, marker: `${prefix} v2`, cmd: QUICK_STOP_CMD, auth })

  const tw = await tidewatch(env, { names: [`${prefix}-.*`] }, { repoUser: env.authUser, repoPass: env.authPassword })
  t.teardown(() => tw.close())
  const report = await tw.update()
  t.match(report.results, [{ outcome: 'updated', newImageId: v2.digest }])

  // Scaled up without any credentials of the test's own: the node pulls the private image with those the
  // update stored in the service, or the task never starts.
  const service = engine.getService(id)
  const current = (await service.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> }
  await service.update({ ...current.Spec, version: current.Version.Index, Mode: { Replicated: { Replicas: 1 } } })
  const tasks = await waitForTasks(engine, id, pinned(v2), 1, 30_000)
  t.equal(tasks.length, 1, 'the task runs the new digest, pulled from the registry that needs a login')
})

t.test("with Swarm's default failure action an update of failing tasks pauses, and is reported failed, not rolled back", async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('swarm-pause')
  t.teardown(() => removeServices(engine, prefix))
  const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v1`, cmd: QUICK_STOP_CMD })
  const id = await createService(engine, { name: `${prefix}-app`, image: pinned(v1), labels: { 'tidewatch.enable': 'true' }, failureAction: 'pause' })
  await waitForTasks(engine, id, pinned(v1), 1)
  await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v2`, cmd: ['/bin/sh', '-c', 'exit 1'] })

  const tw = await tidewatch(env, { names: [`${prefix}-.*`] })
  t.teardown(() => tw.close())
  const report = await tw.update()
  t.match(report.results, [{ outcome: 'failed', rolledBack: false, error: /^Swarm paused the update/ }])
  t.equal((await serviceState(engine, id)).updateState, 'paused', 'Swarm says the same')
})

t.test('an update still going when --swarm-update-timeout ends is reported failed, and Swarm finishes it', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('swarm-timeout')
  t.teardown(() => removeServices(engine, prefix))
  const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v1`, cmd: QUICK_STOP_CMD })
  const id = await createService(engine, { name: `${prefix}-app`, image: pinned(v1), labels: { 'tidewatch.enable': 'true' } })
  await waitForTasks(engine, id, pinned(v1), 1)
  const v2 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v2`, cmd: QUICK_STOP_CMD })

  // Swarm watches each new task for two seconds (the helper's update monitor) before it calls the update done.
  const tw = await tidewatch(env, { names: [`${prefix}-.*`], updateTimeoutMs: 500 })
  t.teardown(() => tw.close())
  const report = await tw.update()
  t.match(report.results, [{ outcome: 'failed', rolledBack: false, error: /not finished when the wait ended; Swarm carries on with it/ }])
  await waitForTasks(engine, id, pinned(v2), 1)
  t.equal((await serviceState(engine, id)).image, pinned(v2), 'Swarm carried on to the new digest')
})
