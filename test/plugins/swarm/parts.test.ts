// The swarm runtime's rules that need no engine: how a spec image becomes a target's image and digest, the
// update body and header, how Swarm's final states are reported, and the rule that a service is never
// updated to a tag without a digest.
import t from 'tap'
import { serviceTarget, splitServiceImage } from '../../../plugins/swarm/target.js'
import { outcomeOf, updateService, withImage } from '../../../plugins/swarm/update.js'
import { createTidewatch, isMonitorOnly } from '../../../core/index.js'
import type { SelectionRules } from '../../../core/selection-rules.js'
import { type EngineApi, registryAuthHeader } from '../../../contracts/index.js'
import { fakeTarget } from '../../helpers/targets.js'

const DIGEST = `sha256:${'a'.repeat(64)}`

t.test('spec images', async (t) => {
  t.same(splitServiceImage(`127.0.0.1:5000/acme/web:1.2@${DIGEST}`), { image: '127.0.0.1:5000/acme/web:1.2', repository: '127.0.0.1:5000/acme/web', tag: '1.2', digest: DIGEST })
  t.same(splitServiceImage(`nginx@${DIGEST}`), { image: `nginx@${DIGEST}`, repository: 'nginx', tag: undefined, digest: DIGEST }, 'pinned by its owner: kept')
  t.same(splitServiceImage('localhost:5000/app'), { image: 'localhost:5000/app:latest', repository: 'localhost:5000/app', tag: 'latest', digest: undefined })
  const target = serviceTarget(
    { ID: 'svc1', Version: { Index: 7 }, Spec: { Name: 'web', Labels: { 'tidewatch.enable': 'true' }, TaskTemplate: { ContainerSpec: { Image: `nginx:1@${DIGEST}` } } } },
    'unix:///var/run/docker.sock',
  )
  t.match(target, { runtime: 'swarm', kind: 'service', host: 'unix:///var/run/docker.sock', id: 'svc1', name: 'web', image: 'nginx:1', imageId: DIGEST, repoDigests: [`nginx@${DIGEST}`] })
})

t.test('the update body changes only the image; the header is base64url JSON', async (t) => {
  const spec = { Name: 'web', Labels: { a: 'b' }, Mode: { Replicated: { Replicas: 3 } }, TaskTemplate: { ContainerSpec: { Image: 'x:1', Env: ['A=1'] }, RestartPolicy: { Condition: 'any' } }, UpdateConfig: { FailureAction: 'rollback' } }
  const changed = withImage(spec, `x:1@${DIGEST}`)
  t.same(changed, { ...spec, TaskTemplate: { ...spec.TaskTemplate, ContainerSpec: { Image: `x:1@${DIGEST}`, Env: ['A=1'] } } })
  t.equal(spec.TaskTemplate.ContainerSpec.Image, 'x:1', 'the spec read is not changed in place')
  const auth = { username: 'u', password: 'p?>~', serveraddress: 'r.example' }
  const header = registryAuthHeader(auth)
  t.notMatch(header, /[+/=]/, 'URL-safe, unpadded')
  t.same(JSON.parse(Buffer.from(header, 'base64url').toString('utf8')), auth)
})

t.test("Swarm's final states", async (t) => {
  const target = fakeTarget('svc')
  const images = { oldImageId: 'sha256:old', newImageId: 'sha256:new' }
  t.match(outcomeOf(target, { State: 'completed' }, images), { outcome: 'updated', newImageId: 'sha256:new' })
  t.match(outcomeOf(target, { State: 'rollback_completed', Message: 'update rolled back due to failure or early termination of task x' }, images), {
    outcome: 'failed',
    rolledBack: true,
    error: 'Swarm rolled the update back: update rolled back due to failure or early termination of task x',
  })
  t.match(outcomeOf(target, { State: 'paused', Message: 'update paused due to failure' }, images), { outcome: 'failed', rolledBack: false, error: /paused the update/ })
  t.match(outcomeOf(target, { State: 'rollback_paused' }, images), { outcome: 'failed', rolledBack: false, error: /paused the rollback/ })
})

t.test('never a tag without a digest', async (t) => {
  const calls: string[] = []
  const engine: EngineApi = {
    host: 'unix:///nowhere.sock',
    request: async (method, path) => {
      calls.push(`${method} ${path}`)
      throw new Error('not expected')
    },
  }
  const result = await updateService({
    engine,
    target: fakeTarget('svc', { runtime: 'swarm' }),
    latestDigest: undefined,
    authFor: async () => undefined,
    signal: new AbortController().signal,
    pollIntervalMs: 10,
  })
  t.match(result, { outcome: 'skipped', reason: /only updated to a pinned digest/ })
  t.same(calls, [], 'the engine is not even asked')
})

t.test('selection leaves other runtimes alone; without --swarm a service opts in', async (t) => {
  const container = fakeTarget('c', { runtime: 'docker' })
  const service = fakeTarget('s', { runtime: 'swarm' })
  const opted = fakeTarget('o', { runtime: 'swarm', labels: { 'tidewatch.enable': 'true' } })
  const rules: SelectionRules = { names: [], disableContainers: [], monitorImageNames: [], skipImageNames: [], enableContainersByLabel: [], disableContainersByLabel: [], labelEnable: false, scope: '' }
  // As plugins/swarm/start.ts hands them to the core, which applies them at the select stage.
  const select = async (values: SelectionRules, all: boolean) => {
    const tw = await createTidewatch({
      plugins: [{
        name: 'stub',
        apply(core) {
          core.hooks.discover.tapPromise('stub', async (found) => [...found, container, service, opted])
          core.applySelection('swarm', values, { onlyEnabled: !all })
        },
      }],
    })
    try {
      return (await tw.targets()).map((x) => x.name)
    } finally {
      await tw.close()
    }
  }
  t.same(await select(rules, false), ['c', 'o'])
  t.same(await select(rules, true), ['c', 's', 'o'])
  t.same(await select({ ...rules, names: ['o'] }, true), ['c', 'o'])
})

t.test('monitor-only as for containers: label OR flag, a set label wins with label precedence', async (t) => {
  const off = fakeTarget('a', { runtime: 'swarm', labels: { 'tidewatch.monitor-only': 'false' } })
  const on = fakeTarget('b', { runtime: 'swarm', labels: { 'com.centurylinklabs.watchtower.monitor-only': 'true' } })
  const empty = fakeTarget('c', { runtime: 'swarm', labels: { 'tidewatch.monitor-only': '' } })
  const none = fakeTarget('d', { runtime: 'swarm' })
  const flags = (monitorOnly: boolean, labelTakePrecedence: boolean) => ({ monitorOnly, labelTakePrecedence })
  t.same([off, on, empty, none].map((x) => isMonitorOnly(x, flags(false, false))), [false, true, false, false])
  t.same([off, on, empty, none].map((x) => isMonitorOnly(x, flags(true, false))), [true, true, true, true])
  t.same([off, on, empty, none].map((x) => isMonitorOnly(x, flags(true, true))), [false, true, false, true])
})
