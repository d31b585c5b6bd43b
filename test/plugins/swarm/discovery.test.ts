// Service discovery across engines, against the real engines of the test environment: a plain engine adds no
// service, and two configured engines that manage one swarm list its services once.
import t from 'tap'
import { discoverServices, managedCluster } from '../../../plugins/swarm/discovery.js'
import { requireSwarm, swarmDocker } from '../../helpers/env.js'
import { memoryLogger } from '../../helpers/memory-logger.js'
import { pushImage, testPrefix } from '../../helpers/images.js'
import { createService, engineApi, removeServices } from '../../helpers/swarm.js'

t.test('a swarm is listed once, on one of its managers; a plain engine lists nothing', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('swarm-discovery')
  t.teardown(() => removeServices(engine, prefix))
  const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: prefix })
  const id = await createService(engine, { name: `${prefix}-app`, image: `${image.ref}@${image.digest}`, mode: { replicas: 0 } })

  const plain = await engineApi(env.dockerSocket)
  const manager = await engineApi(env.swarmDockerSocket)
  // The same manager under a second name, as when one node is configured by socket and by TCP.
  const again = await engineApi(env.swarmDockerSocket, `unix://${env.swarmDockerSocket.replace(/\/docker\.sock$/, '//docker.sock')}`)
  t.teardown(() => Promise.all([plain.close(), manager.close(), again.close()]))

  t.equal(await managedCluster(plain), undefined, 'the shared engine is no Swarm manager')
  const cluster = await managedCluster(manager)
  t.match(cluster, /^[a-z0-9]{25}$/, 'a manager names its cluster')
  t.equal(await managedCluster(again), cluster)

  const logger = memoryLogger()
  const found = (await discoverServices([plain, manager, again], { logger })).filter((x) => x.name.startsWith(prefix))
  t.same(found.map((x) => [x.id, x.host]), [[id, manager.host]], 'one target, on the first manager configured')

  const announced: string[] = []
  await discoverServices([again, manager], { logger, announce: (batch) => announced.push(...batch.map((x) => x.host ?? '')) })
  t.ok(announced.length > 0 && announced.every((host) => host === again.host), 'the first configured manager of the swarm answers')
})

t.test('an engine that does not answer is logged and leaves out only its own services', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('swarm-discovery-down')
  t.teardown(() => removeServices(engine, prefix))
  const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: prefix })
  const id = await createService(engine, { name: `${prefix}-app`, image: `${image.ref}@${image.digest}`, mode: { replicas: 0 } })
  const down = await engineApi(`${env.envDir}/no-such-engine.sock`)
  const manager = await engineApi(env.swarmDockerSocket)
  t.teardown(() => Promise.all([down.close(), manager.close()]))
  const logger = memoryLogger()
  const found = await discoverServices([down, manager], { logger })
  t.same(found.filter((x) => x.name.startsWith(prefix)).map((x) => x.id), [id], "the manager's service is there")
  t.ok(logger.lines.some((e) => e.level === 'warn' && e.obj['host'] === down.host), 'the engine that is down is named in a warning')
})
