// A rollback is named as one (docs/state.md#rollback-on-demand), through the real binary, engine and registry:
// its notification to a local receiver says "Rolled back", never "Found new"; the audit trail names each
// reference (a tag update's `to.image` is the new tag); under --monitor-only a rollback is refused with 409
// and a reason, changing nothing; a release of a container that does not exist is 404.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { CaptureServer } from '../helpers/capture-server.js'
import { waitFor } from '../helpers/env.js'
import { pullImage, pushImage, runContainer } from '../helpers/images.js'
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js'
import { call } from '../helpers/service.js'
import { serveScenario } from '../helpers/fixtures.js'

const TOKEN = 'e2e-rollback-named-token-0123'

interface AuditEntry { action: string; outcome: string; from: { image: string }; to?: { image: string } }

t.test('notification, audit, monitor-only and release of a rollback', async (t) => {
  const s = await scenario(t, 'e2e-rbnamed')
  if (!s) return
  const dir = await mkdtemp(join(tmpdir(), 'tw-rbnamed-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const hook = await new CaptureServer().start()
  t.teardown(() => hook.close())
  const repo = `${s.prefix}/app`
  const push = (tag: string) => pushImage({ registry: s.env.registry, repo, tag, marker: `${repo} ${tag}`, cmd: QUICK_STOP_CMD })
  const v100 = await push('1.0.0')
  await pullImage(s.engine, v100.ref)
  const name = `${s.prefix}-app`
  await runContainer(s.engine, { name, image: v100.ref, labels: { 'tidewatch.tag.policy': 'minor' } })
  const v110 = await push('1.1.0')
  const serve = async (extra: string[]) => {
    const service = await serveScenario(t, { host: s.env.dockerHost, prefix: s.prefix }, [
      '--http-api-endpoints', 'update,audit,rollback', '--http-api-token', TOKEN, '--data-dir', dir, '--update-grace-period', '1s',
      '--stop-timeout', '5s', '--notification-url', `generic+http://${hook.host}/hook`, ...extra,
    ], 90_000)
    const post = (path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN })
    const audit = async () => ((await call(`${service.url}/v1/audit?container=${name}`, { token: TOKEN })).body as { entries: AuditEntry[] }).entries
    return { service, post, audit }
  }

  // Monitor-only, with a previous image known: refused, and nothing changes.
  const first = await serve([])
  t.match((await first.post('/v1/update')).body, { summary: { updated: 1 } })
  t.match(await first.audit(), [{ action: 'update', from: { image: v100.ref }, to: { image: v110.ref } }], 'a tag update names the new tag as to.image')
  await waitFor(() => hook.requests.length >= 1 || undefined, 10_000)
  t.equal(await first.service.stop(), 0)
  const watching = await serve(['--monitor-only'])
  const before = await s.engine.getContainer(name).inspect()
  const refused = await watching.post(`/v1/rollback?container=${name}`)
  t.equal(refused.status, 409, refused.text)
  t.match(refused.body, { error: /not rolled back: monitor-only/ })
  const after = await s.engine.getContainer(name).inspect()
  t.equal(after.Id, before.Id, 'monitor-only: the container is untouched')
  t.equal(after.Image, v110.configDigest)
  t.same((await watching.audit()).map((e) => e.action), ['update'], 'no rollback in the audit trail')
  const unknown = await watching.post(`/v1/release?container=${s.prefix}-nothing`)
  t.equal(unknown.status, 404, 'release of a container that does not exist')
  t.match(unknown.body, { error: /no container named/ })
  t.equal(await watching.service.stop(), 0)

  // The rollback itself, notified as one.
  const sent = hook.requests.length
  const active = await serve([])
  const rolled = await active.post(`/v1/rollback?container=${name}`)
  t.equal(rolled.status, 200, rolled.text)
  t.match((await active.audit()).at(-1), { action: 'rollback', outcome: 'rolled_back', from: { image: v110.ref }, to: { image: v100.ref } })
  const message = await waitFor(() => hook.requests.slice(sent).find((r) => r.body.includes('Rolled back'))?.body, 10_000)
  t.match(message, `Rolled back /${name} from ${v110.ref}`, 'the notification says rolled back, from the version it ran')
  t.match(message, `to ${v100.ref}`, 'to the previous reference')
  t.notMatch(message, /Found new|Updated \//, 'never announced as a new image or an update')
})
