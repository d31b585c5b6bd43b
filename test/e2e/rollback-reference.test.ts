// One source of truth for a container's reference (docs/state.md#rollback-on-demand), through the real
// binary, engine and registry: a rollback puts the container back on the reference it ran (never a bare
// image id as Config.Image, no zodiac label that outlives it), and the minor-policy sequence
// update → rollback → release → newer tag → update settles on the newest tag for good. The first two run on
// Docker 20.10 and on Docker 28.5 with the containerd image store (docs/engines.md), where an image that loses
// its tag keeps no name at all and image ids are manifest digests.
import t from 'tap'
import { pullImage, pushImage, runContainer, type PushedImage } from '../helpers/images.js'
import { QUICK_STOP_CMD, docker28StoreScenario, mainScenario, runningOn, pushNext, scenario, type EngineScenario } from '../helpers/scenarios.js'
import { call } from '../helpers/service.js'
import { serveScenario } from '../helpers/fixtures.js'

const TOKEN = 'e2e-rollback-ref-token-012345'
const ZODIAC = 'com.centurylinklabs.zodiac.original-image'

interface Summary { updated: number; failed: number; skipped: number }
interface ContainerRow { name: string; image: string; image_id: string; held?: boolean }

async function serve(t: { teardown(fn: () => unknown): void }, dockerHost: string, prefix: string) {
  const service = await serveScenario(t, { host: dockerHost, prefix }, [
    '--http-api-endpoints', 'check,containers,update,rollback', '--http-api-token', TOKEN, '--update-grace-period', '1s', '--stop-timeout', '5s',
  ])
  const post = async (path: string) => {
    const res = await call(`${service.url}${path}`, { method: 'POST', token: TOKEN })
    return { ...res, summary: (res.body as { summary?: Summary }).summary }
  }
  const row = async (name: string) => {
    const body = (await call(`${service.url}/v1/containers`, { token: TOKEN })).body as { containers: ContainerRow[] }
    return body.containers.find((c) => c.name === name)
  }
  return { post, row, service }
}

/** Where both engine tests run; `idOf`: the image id the engine gives a pushed image. */
const SETUPS: { label: string; scenario: (t: Parameters<typeof scenario>[0], label: string) => Promise<EngineScenario | undefined>; idOf: (p: PushedImage) => string }[] = [
  { label: 'Docker 20.10', scenario: mainScenario, idOf: (p) => p.configDigest },
  { label: 'Docker 28.5 containerd store', scenario: docker28StoreScenario, idOf: (p) => p.digest },
]

for (const { label, scenario: on, idOf } of SETUPS) {
t.test(`${label}: rb:1.0.0 minor: update, rollback, release, push 1.2.0, update, five more runs: stays on 1.2.0`, async (t) => {
  const s = await on(t, 'e2e-rbref-minor')
  if (!s) return
  const repo = `${s.prefix}/rb`
  const push = (tag: string) => pushImage({ registry: s.env.registry, repo, tag, marker: `${repo} ${tag}`, cmd: QUICK_STOP_CMD })
  const v100 = await push('1.0.0')
  await pullImage(s.engine, v100.ref)
  const name = `${s.prefix}-rb`
  await runContainer(s.engine, { name, image: v100.ref, labels: { 'tidewatch.tag.policy': 'minor' } })
  const v110 = await push('1.1.0')
  const { post, row } = await serve(t, s.host, s.prefix)
  const inspect = () => s.engine.getContainer(name).inspect()

  t.match((await post('/v1/update')).summary, { updated: 1, failed: 0 })
  t.equal((await inspect()).Config.Image, v110.ref, 'updated to 1.1.0')

  const rolled = await post(`/v1/rollback?container=${name}`)
  t.equal(rolled.status, 200, rolled.text)
  t.match(rolled.body, { to: { image: v100.ref, image_id: idOf(v100) }, from: { image: v110.ref } })
  const back = await inspect()
  t.equal(back.Config.Image, v100.ref, 'Config.Image is the previous reference, not a bare image id')
  t.equal(back.Image, idOf(v100), 'and it runs the previous image')
  t.notOk(back.Config.Labels[ZODIAC], 'no zodiac label that would outrank the reference')
  t.match(await row(name), { image: v100.ref, image_id: idOf(v100), held: true }, '/v1/containers names 1.0.0')

  t.match((await post(`/v1/release?container=${name}`)).body, { released: true })
  const v120 = await push('1.2.0')
  t.match((await post('/v1/update')).summary, { updated: 1, failed: 0 })
  const settled = await inspect()
  t.equal(settled.Config.Image, v120.ref, 'updated to 1.2.0')
  t.equal(settled.Image, idOf(v120))
  t.notOk(settled.Config.Labels[ZODIAC], 'no label left from the rollback')
  for (let run = 1; run <= 5; run++) {
    t.match((await post('/v1/update')).summary, { updated: 0, failed: 0 }, `run ${run} changes nothing`)
    const now = await inspect()
    t.equal(now.Id, settled.Id, `run ${run}: the same container`)
    t.equal(now.Image, idOf(v120), `run ${run}: still on 1.2.0`)
  }
  t.match(await row(name), { image: v120.ref, image_id: idOf(v120) })
})

t.test(`${label}: a digest update rolled back runs the previous image under its own tag`, async (t) => {
  const s = await on(t, 'e2e-rbref-digest')
  if (!s) return
  const app = await runningOn(s, 'app')
  const v2: PushedImage = await pushNext(s, app)
  const { post, row, service } = await serve(t, s.host, s.prefix)
  t.match((await post('/v1/update')).summary, { updated: 1 })
  t.equal((await s.engine.getContainer(app.name).inspect()).Image, idOf(v2))

  t.equal((await post(`/v1/rollback?container=${app.name}`)).status, 200)
  const back = await s.engine.getContainer(app.name).inspect()
  t.equal(back.Config.Image, app.image.ref, 'Config.Image: the tag it ran, not sha256:…')
  t.equal(back.Image, idOf(app.image), 'on the previous image')
  t.equal((await s.engine.getImage(app.image.ref).inspect()).Id, idOf(app.image), 'the tag names that image again')
  t.match(await row(app.name), { image: app.image.ref, image_id: idOf(app.image), held: true })
  const held = await post('/v1/update')
  t.match(held.summary, { updated: 0, skipped: 1 }, 'held: the next run leaves it')
  t.match(held.body, { skipped: [{ container: app.name, reason: /^held after a rollback from sha256:.*POST \/v1\/release/ }] }, 'and the answer says why')
  t.ok(service.logs.some((l) => l['msg'] === 'update skipped' && l['container'] === app.name && /held after a rollback/.test(String(l['reason']))), 'so does an info line')
})
}

t.test('a container someone else labelled keeps its name: the zodiac label counts only for an image id', async (t) => {
  const s = await scenario(t, 'e2e-rbref-label')
  if (!s) return
  const app = await runningOn(s, 'app', { run: { labels: { [ZODIAC]: `${s.env.registry}/${s.prefix}/app:0.9` } } })
  const { row } = await serve(t, s.env.dockerHost, s.prefix)
  t.match(await row(app.name), { image: app.image.ref }, 'named by Config.Image, not by a stale label')
})
