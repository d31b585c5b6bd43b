// Home Assistant's update entity with versions and release notes on the real broker (docs/mqtt.md#versions):
// latest_version is the candidate's version (not a digest), release_url the update's release-notes location,
// release_summary the releases it brings in at most 255 characters (Home Assistant's limit).
import t from 'tap'
import { createTidewatch, definePlugin, type Staleness, type Tidewatch } from '../../../core/index.js'
import { mqttPlugin } from '../../../plugins/mqtt/index.js'
import { requireBroker, subscribe } from '../../helpers/mqtt.js'
import { fakeTarget } from '../../helpers/targets.js'
import { asStaleness } from '../../helpers/staleness.js';

const OLD = `sha256:${'a'.repeat(64)}`
const NEW = `sha256:${'b'.repeat(64)}`
const URL = 'https://github.com/acme/app/releases/tag/v2.4.0'

t.test('latest_version, release_url and release_summary reach the broker', async (t) => {
  const env = await requireBroker(t)
  if (!env) return
  const node = `relnotes_${process.pid}`
  const prefix = `tw-test/${node}`
  const app = fakeTarget('app', { imageId: OLD, image: 'acme/app:latest', repoDigests: [`acme/app@${OLD}`], imageLabels: { 'org.opencontainers.image.version': '2.1.0' } })
  const entries = ['2.4.0', '2.3.0', '2.2.0'].map((v) => ({ version: `v${v}`, title: `The ${v} release, with a long title that goes on and on about what changed in it`, url: `https://github.com/acme/app/releases/tag/v${v}`, body: '' }))
  const stand = definePlugin({
    name: 'stand-in',
    apply(core) {
      core.hooks.discover.tapPromise('stand-in', async (found) => [...found, app])
      core.hooks.checkStaleness.tapPromise('stand-in', async (): Promise<Staleness> => (asStaleness({
        source: 'registry', stale: true, currentDigest: OLD, latestDigest: NEW, latestVersion: '2.4.0', releaseNotes: { url: URL, entries },
      })))
    },
  })
  const sub = await subscribe(t, env.mqtt, [`${prefix}/#`])
  let tw: Tidewatch | undefined
  t.teardown(async () => tw?.close())
  tw = await createTidewatch({
    plugins: [stand, { plugin: mqttPlugin, options: { url: `mqtt://${env.mqtt}`, topicPrefix: prefix, discoveryPrefix: `ha-test/${node}`, clientId: node } }],
  })
  const parse = (m: { payload: string }) => JSON.parse(m.payload) as Record<string, unknown>
  const since = Date.now()
  await tw.check()
  const state = parse(await sub.next(`${prefix}/app/state`, (m) => 'latest_version' in parse(m), 15_000, since))
  t.match(state, { installed_version: '2.1.0', latest_version: '2.4.0', release_url: URL }, 'the versions and the notes\' location')
  const summary = state.release_summary as string
  t.ok(summary.length <= 255, `release_summary within Home Assistant's 255 characters (${summary.length})`)
  t.match(summary, /^v2\.4\.0: The 2\.4\.0 release/, 'newest first')
  t.ok(summary.endsWith('…'), 'cut, and says so')
})
