// The docker runtime leaves Swarm's task containers alone, always (docs/swarm.md): on the test environment's
// Swarm engine, a running task container of a stale image is never a target, while a plain container of the
// same image next to it is, and an update run replaces the plain container only.
import t from 'tap'
import { createTidewatch } from '../../../core/index.js'
import { dockerPlugin } from '../../../plugins/docker/index.js'
import { registryPlugin } from '../../../plugins/registry/index.js'
import { requireSwarm, swarmDocker } from '../../helpers/env.js'
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../../helpers/images.js'
import { QUICK_STOP_CMD } from '../../helpers/scenarios.js'
import { createService, removeServices, runningTasks, waitForTasks } from '../../helpers/swarm.js'

t.test('task containers are never targets of the docker runtime', async (t) => {
  const env = await requireSwarm(t)
  if (!env) return
  const engine = swarmDocker(env)
  const prefix = testPrefix('docker-swarm-tasks')
  t.teardown(async () => {
    await removeServices(engine, prefix)
    await removeContainers(engine, prefix)
  })
  const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v1`, cmd: QUICK_STOP_CMD })
  const pinned = `${v1.ref}@${v1.digest}`
  const id = await createService(engine, { name: `${prefix}-svc`, image: pinned, labels: { 'tidewatch.enable': 'true' } })
  await waitForTasks(engine, id, pinned, 1)
  const task = (await runningTasks(engine, id))[0]?.Status.ContainerStatus?.ContainerID as string
  await pullImage(engine, v1.ref)
  const plain = await runContainer(engine, { name: `${prefix}-plain`, image: v1.ref, cmd: QUICK_STOP_CMD })
  await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: `${prefix} v2`, cmd: QUICK_STOP_CMD })

  // Only the docker runtime: nothing else could take the task container's side.
  const tw = await createTidewatch({
    plugins: [{ plugin: dockerPlugin, options: { host: env.swarmDockerHost, names: [`${prefix}-.*`], gracePeriodMs: 0 } }, registryPlugin],
  })
  t.teardown(() => tw.close())
  const task_ = await engine.getContainer(task).inspect()
  t.match(task_.Name, new RegExp(`^/${prefix}-svc\\.1\\.`), 'the task container matches the names filter')
  t.same((await tw.targets()).map((x) => x.id), [plain.id], 'the plain container is a target, the task container is not')

  const report = await tw.update()
  t.match(report.summary, { updated: 1, failed: 0 })
  const after = await engine.getContainer(task).inspect()
  t.equal(after.Id, task, 'the stale task container is still there')
  t.ok(after.State.Running, 'and running')
  t.equal(after.Image, task_.Image, 'on its image')
})
