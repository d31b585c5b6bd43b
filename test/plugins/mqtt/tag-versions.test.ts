// Home Assistant's versions for tag updates on the real broker (docs/mqtt.md#versions): a container moving
// to a new tag shows installed = the current tag and latest = the new one; once updated, the new tag as
// both; a digest update shows digests as before. The runtime and the source are stand-ins here (the
// versions come from the staleness answer only): what is under test is what reaches the broker.
import t from 'tap'
import { createTidewatch, definePlugin, type Staleness, type Target, type Tidewatch } from '../../../core/index.js'
import { mqttPlugin } from '../../../plugins/mqtt/index.js'
import { installedVersion, latestVersion } from '../../../plugins/mqtt/versions.js'
import { requireBroker, subscribe } from '../../helpers/mqtt.js'
import { fakeTarget } from '../../helpers/targets.js'
import { asStaleness } from '../../helpers/staleness.js';

const OLD = `sha256:${'a'.repeat(64)}`
const NEW = `sha256:${'b'.repeat(64)}`

t.test('versions from the tag fields', async (t) => {
  const target = fakeTarget('web', { image: 'nginx:1.25.3-alpine', repoDigests: [`nginx@${OLD}`] })
  const tagged: Staleness = asStaleness({ source: 'registry', stale: true, tagPolicy: 'minor', currentTag: '1.25.3-alpine', latestTag: '1.25.4-alpine', updateKind: 'patch', latestDigest: NEW })
  t.equal(installedVersion(target, tagged), '1.25.3-alpine')
  t.equal(latestVersion(target, tagged), '1.25.4-alpine')
  const upToDate: Staleness = asStaleness({ source: 'registry', stale: false, tagPolicy: 'minor', currentTag: '1.25.4-alpine' })
  t.equal(latestVersion(target, upToDate), '1.25.4-alpine', 'a version policy that is up to date: its tag')
  const digest: Staleness = asStaleness({ source: 'registry', stale: true, tagPolicy: 'digest', currentTag: '1.25.3-alpine', updateKind: 'digest', latestDigest: NEW })
  t.equal(installedVersion(target, digest), 'sha256:aaaaaaaaaaaa', 'a digest update: digests as before')
  t.equal(latestVersion(target, digest), 'sha256:bbbbbbbbbbbb')
})

t.test('a tag update on the real broker: before, during and after', async (t) => {
  const env = await requireBroker(t)
  if (!env) return
  const node = `tagver_${process.pid}`
  const prefix = `tw-test/${node}`
  const discovery = `ha-test/${node}`
  let updated = false
  const web = (): Target =>
    fakeTarget('web', updated
      ? { imageId: NEW, image: 'nginx:1.25.4-alpine', repoDigests: [`nginx@${NEW}`] }
      : { imageId: OLD, image: 'nginx:1.25.3-alpine', repoDigests: [`nginx@${OLD}`] })
  const redis = fakeTarget('redis', { imageId: OLD, image: 'redis:7', repoDigests: [`redis@${OLD}`] })
  const stand = definePlugin({
    name: 'stand-in',
    apply(core) {
      core.hooks.discover.tapPromise('stand-in', async (found) => [...found, web(), redis])
      core.hooks.checkStaleness.tapPromise('stand-in', async (target): Promise<Staleness> =>
        target.name === 'redis'
          ? asStaleness({ source: 'registry', stale: true, tagPolicy: 'digest', currentTag: '7', updateKind: 'digest', currentDigest: OLD, latestDigest: NEW })
          : updated
            ? asStaleness({ source: 'registry', stale: false, tagPolicy: 'minor', currentTag: '1.25.4-alpine', currentDigest: NEW })
            : asStaleness({ source: 'registry', stale: true, tagPolicy: 'minor', currentTag: '1.25.3-alpine', latestTag: '1.25.4-alpine', updateKind: 'patch', currentDigest: OLD, latestDigest: NEW }),
      )
      core.hooks.apply.tapPromise('stand-in', async (plan) => {
        if (plan.target.name === 'web') updated = true
        return { target: plan.target, outcome: 'updated', oldImageId: OLD, newImageId: NEW }
      })
    },
  })
  const sub = await subscribe(t, env.mqtt, [`${prefix}/#`])
  let tw: Tidewatch | undefined
  t.teardown(async () => tw?.close())
  tw = await createTidewatch({
    plugins: [stand, { plugin: mqttPlugin, options: { url: `mqtt://${env.mqtt}`, topicPrefix: prefix, discoveryPrefix: discovery, clientId: node } }],
  })
  const state = (name: string) => `${prefix}/${name}/state`
  const parse = (m: { payload: string }) => JSON.parse(m.payload) as Record<string, unknown>

  let since = Date.now()
  await tw.check()
  const pending = parse(await sub.next(state('web'), (m) => 'latest_version' in parse(m), 15_000, since))
  t.match(pending, { installed_version: '1.25.3-alpine', latest_version: '1.25.4-alpine' }, 'a tag update: tags')
  const digest = parse(await sub.next(state('redis'), (m) => 'latest_version' in parse(m), 15_000, since))
  t.match(digest, { installed_version: 'sha256:aaaaaaaaaaaa', latest_version: 'sha256:bbbbbbbbbbbb' }, 'a digest update: digests')

  since = Date.now()
  await tw.update({ filters: { containers: ['web'] } })
  const after = parse(await sub.next(state('web'), (m) => parse(m).installed_version === '1.25.4-alpine', 15_000, since))
  t.match(after, { installed_version: '1.25.4-alpine', latest_version: '1.25.4-alpine' }, 'updated: the new tag is installed and latest')
})
