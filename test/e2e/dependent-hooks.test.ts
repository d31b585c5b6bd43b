// Lifecycle hooks around a dependent (docs/interface.md), through the real binary and engine: a container that
// depends on an updated one is stopped for its update and recreated after it, and gets both hooks, in order:
// its pre-update before it is stopped, its post-update once it runs again (Watchtower runs both).
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runContainer } from '../helpers/images.js'
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js'
import { runBinary } from '../helpers/service.js'

t.test('a dependent gets its pre-update and post-update hooks, in order', async (t) => {
  const s = await scenario(t, 'e2e-dephooks')
  if (!s) return
  const dir = await mkdtemp(join(tmpdir(), 'tw-dephooks-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const db = await runningOn(s, 'db')
  const web = await runContainer(s.engine, {
    name: `${s.prefix}-web`,
    image: db.image.ref,
    hostConfig: { Binds: [`${dir}:/hooks`] },
    labels: {
      'tidewatch.depends-on': db.name,
      'tidewatch.lifecycle.pre-update': 'echo pre-update >> /hooks/web.log',
      'tidewatch.lifecycle.post-update': 'echo post-update >> /hooks/web.log',
    },
  })
  await pushNext(s, db)
  const result = await runBinary([
    '--host', s.env.dockerHost, '--run-once', '--enable-lifecycle-hooks', '--update-grace-period', '1s', '--stop-timeout', '5s',
    db.name, `${s.prefix}-web`,
  ], {}, 120_000)
  t.equal(result.code, 0, result.stderr)
  const after = await s.engine.getContainer(`${s.prefix}-web`).inspect()
  t.not(after.Id, web.id, 'the dependent was recreated after its parent')
  t.ok(after.State.Running)
  const log = await readFile(join(dir, 'web.log'), 'utf8')
  t.same(log.trim().split('\n'), ['pre-update', 'post-update'], 'both hooks, pre before post')
})
