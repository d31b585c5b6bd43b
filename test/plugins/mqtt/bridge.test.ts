// The bridge's rules without a broker (docs/mqtt.md): object ids from names, no clearing after a targeted run,
// clearing of gone containers and of retained leftovers after a full one, and a publisher that throws costs
// a run nothing. The broker-side behaviour is proven in home-assistant.test.ts.
import t from 'tap'
import { createTidewatch, definePlugin, exactNamePattern, nameMatcher, type Staleness, type Target } from '../../../core/index.js'
import { HomeAssistantBridge } from '../../../plugins/mqtt/bridge.js'
import { brokerAddress, parseBrokerUrl, redactBrokerUrl } from '../../../plugins/mqtt/broker-url.js'
import { parseClientId, parseTopicPrefix } from '../../../plugins/mqtt/options.js'
import { objectIdOf, Topics } from '../../../plugins/mqtt/topics.js'
import { installedVersion, latestVersion, releaseUrlOf } from '../../../plugins/mqtt/versions.js'
import { mqttPlugin } from '../../../plugins/mqtt/index.js'
import { fakeTarget } from '../../helpers/targets.js'
import { memoryLogger } from '../../helpers/memory-logger.js'
import { asStaleness } from '../../helpers/staleness.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`
const NEWER = `sha256:${'cd'.repeat(32)}`

async function harness(targets: Target[], publish: (topic: string, payload: string) => void = () => undefined) {
  const staleness = new Map<string, Staleness>()
  const fake = definePlugin({
    name: 'fake',
    apply(core) {
      core.hooks.discover.tapPromise('fake', async (found) => [...found, ...targets])
      core.hooks.checkStaleness.tapPromise('fake', async (target) => staleness.get(target.name) ?? { source: 'registry', stale: false })
    },
  })
  const tw = await createTidewatch({ plugins: [fake] })
  const published: [string, string][] = []
  const logger = memoryLogger()
  const bridge = new HomeAssistantBridge(tw, new Topics('tw', 'ha', 'node'), {
    publish: (topic, payload) => {
      published.push([topic, payload])
      publish(topic, payload)
    },
  }, logger)
  tw.hooks.event.tap('bridge', (event) => bridge.onEvent(event))
  return { tw, bridge, published, staleness, logger }
}

t.test('object ids: names as they are when safe, else safe characters and a hash', async (t) => {
  t.equal(objectIdOf('web-1_a'), 'web-1_a')
  t.match(objectIdOf('web.1'), /^web_1_[0-9a-f]{6}$/)
  t.not(objectIdOf('web.1'), objectIdOf('web_1'), 'web.1 and web_1 never share an entity')
  t.equal(objectIdOf('web.1'), objectIdOf('web.1'), 'stable')
  const topics = new Topics('a/b', 'homeassistant', 'n')
  t.same(topics.objectIdIn('a/b/web/command'), { kind: 'command', objectId: 'web' })
  t.same(topics.objectIdIn('homeassistant/update/n/web/config'), { kind: 'config', objectId: 'web' })
  t.equal(topics.objectIdIn('homeassistant/update/other/web/config'), undefined, "another node's config is not ours")
  t.equal(topics.objectIdIn('a/b/web/state'), undefined)
})

t.test('the Install command targets exactly one name', async (t) => {
  const match = nameMatcher(exactNamePattern('web.1'))
  t.ok(match('web.1'))
  t.notOk(match('webx1'), 'a dot is not a wildcard')
  t.notOk(match('web.10'))
})

t.test('versions, release URLs and options', async (t) => {
  const target = fakeTarget('app', { image: '127.0.0.1:5101/demo/app:latest', repoDigests: [`other.test/x@${NEWER}`, `127.0.0.1:5101/demo/app@${DIGEST}`] })
  t.equal(installedVersion(target), 'sha256:abababababab', "the digest of the target's own repository")
  t.equal(installedVersion(fakeTarget('local')), `sha256:${'local'.padEnd(12, '0')}`, 'a local build: its image id')
  t.equal(installedVersion({ ...target, imageLabels: { 'org.opencontainers.image.version': '2.0' } }), '2.0')
  t.equal(latestVersion(target), undefined, 'unknown before a check')
  t.equal(latestVersion(target, { source: 'registry', stale: false }), 'sha256:abababababab')
  t.equal(latestVersion(target, { source: 'registry', stale: true, latestDigest: NEWER }), 'sha256:cdcdcdcdcdcd')
  t.equal(latestVersion(target, asStaleness({ source: 'git', stale: true, git: { repo: 'r', ref: 'main', commit: '0123456789abcdef' } })), 'commit 0123456789ab')
  t.equal(latestVersion(target, { source: 'registry', stale: false, error: 'down' }), undefined, 'a failed check says nothing')
  t.equal(releaseUrlOf({ ...target, imageLabels: { 'org.opencontainers.image.url': 'javascript:alert(1)', 'org.opencontainers.image.source': 'https://x.test/r' } }), 'https://x.test/r')

  t.equal(parseTopicPrefix('home/tidewatch/'), 'home/tidewatch')
  for (const bad of ['', 'a/+/b', 'a/#', '/a', 'a//b']) t.throws(() => parseTopicPrefix(bad), bad)
  t.equal(parseClientId('tidewatch-2'), 'tidewatch-2')
  t.throws(() => parseClientId('tide watch'))
  t.equal(parseBrokerUrl(' '), '', 'empty: the plugin is off')
  t.same(brokerAddress('mqtt://us%40er:p%3Ass@[::1]'), { protocol: 'mqtt', host: '::1', port: 1883, username: 'us@er', password: 'p:ss' })
  t.equal(brokerAddress('mqtts://h').port, 8883)
  t.equal(redactBrokerUrl('mqtt://user:secret@broker.test:1884'), 'mqtt://broker.test:1884')
})

t.test('a targeted run clears nothing; a full run clears gone containers and leftovers', async (t) => {
  const targets = [fakeTarget('web'), fakeTarget('db'), fakeTarget('web.1')]
  const { tw, bridge, published } = await harness(targets)
  t.teardown(() => tw.close())
  bridge.connected()
  await bridge.idle()
  const configs = published.filter(([topic]) => topic.endsWith('/config')).map(([topic]) => topic)
  t.same(configs.sort(), [`ha/update/node/${objectIdOf('web.1')}/config`, 'ha/update/node/db/config', 'ha/update/node/web/config'].sort())

  // A retained config of a container this process never saw (removed while Tidewatch was down).
  bridge.onMessage('ha/update/node/ghost/config', '{"name":"ghost"}')
  targets.splice(1, 1) // db goes away
  published.length = 0
  await tw.check({ filters: { containers: ['web'] } })
  await bridge.idle()
  t.same(published.filter(([, payload]) => payload === ''), [], 'a targeted run clears nothing')
  t.same(published.map(([topic]) => topic), ['tw/web/state'], 'and publishes the state of what it checked')

  published.length = 0
  await tw.check()
  await bridge.idle()
  const cleared = published.filter(([, payload]) => payload === '').map(([topic]) => topic).sort()
  t.same(cleared, ['ha/update/node/db/config', 'ha/update/node/ghost/config', 'tw/db/state', 'tw/ghost/state'])
})

t.test('a publisher that throws costs a run nothing', async (t) => {
  const { tw, bridge, logger } = await harness([fakeTarget('web')], () => {
    throw new Error('broker exploded')
  })
  t.teardown(() => tw.close())
  bridge.connected()
  const report = await tw.check()
  t.equal(report.results.length, 1, 'the check completed')
  await bridge.idle()
  t.ok(logger.lines.some((l) => /broker exploded/.test(JSON.stringify(l))), 'the failure is logged')
})

t.test("an embedder's bad broker URL fails start-up naming the option, without the password", async (t) => {
  const err = (await createTidewatch({ plugins: [{ plugin: mqttPlugin, options: { url: 'http://u:hunter2@broker.test' } }] }).then(
    () => undefined,
    (e: unknown) => e,
  )) as Error & { option?: string; exitCode?: number }
  t.ok(err, 'refused')
  t.equal(err.option, 'mqtt-url')
  t.equal(err.exitCode, 2)
  t.match(err.message, /unsupported scheme http/)
  t.notMatch(err.message, /hunter2/)
})

t.test('a broker that cannot be reached costs a run nothing, nor the shutdown', async (t) => {
  const fake = definePlugin({
    name: 'fake',
    apply(core) {
      core.hooks.discover.tapPromise('fake', async (found) => [...found, fakeTarget('web')])
      core.hooks.checkStaleness.tapPromise('fake', async () => ({ source: 'registry', stale: false }))
    },
  })
  const logger = memoryLogger()
  // Port 9 on loopback: nothing listens, the connection is refused and retried in the background.
  const tw = await createTidewatch({ logger, plugins: [fake, { plugin: mqttPlugin, options: { url: 'mqtt://127.0.0.1:9' } }] })
  const started = Date.now()
  const report = await tw.check()
  t.equal(report.results.length, 1)
  t.ok(Date.now() - started < 2000, 'the check did not wait for the broker')
  await new Promise((resolve) => setTimeout(resolve, 300))
  const closing = Date.now()
  await tw.close()
  t.ok(Date.now() - closing < 3000, 'closing does not wait for the broker')
  t.ok(logger.lines.some((l) => l.msg === 'MQTT connection error' && /ECONNREFUSED/.test(l.text)), 'the refusal is logged')
})
