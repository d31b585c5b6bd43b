// Home Assistant over MQTT against the real broker, engine and registry (docs/mqtt.md): discovery configs are
// retained for every watched container, a check's state shows the newer digest of a stale one, the entity's
// Install command updates that container, and a container that went away has its retained messages cleared.
import t from 'tap'
import { createTidewatch, type Tidewatch } from '../../../core/index.js'
import { dockerPlugin } from '../../../plugins/docker/index.js'
import { mqttPlugin } from '../../../plugins/mqtt/index.js'
import { registryPlugin } from '../../../plugins/registry/index.js'
import { waitFor } from '../../helpers/env.js'
import { requireBroker, retainedOn, subscribe } from '../../helpers/mqtt.js'
import { pushNext, runningOn, scenario } from '../../helpers/scenarios.js'

const short = (digest: string) => `sha256:${digest.replace(/^sha256:/, '').slice(0, 12)}`

t.test('discovery, states, Install and clearing on the real broker', async (t) => {
  const s = await scenario(t, 'mqtt-ha')
  if (!s) return
  const env = await requireBroker(t)
  if (!env) return
  const node = s.prefix.replace(/[^A-Za-z0-9_-]/g, '_')
  const prefix = `tw-test/${node}`
  const discovery = `ha-test/${node}`

  const labelled = await runningOn(s, 'labelled', {
    image: { labels: { 'org.opencontainers.image.version': '1.4.2', 'org.opencontainers.image.source': 'https://example.test/acme/labelled' } },
  })
  const plain = await runningOn(s, 'plain')
  const objectId = (name: string) => name // test prefixes are already [A-Za-z0-9_-]
  const config = (name: string) => `${discovery}/update/${node}/${objectId(name)}/config`
  const state = (name: string) => `${prefix}/${objectId(name)}/state`

  const sub = await subscribe(t, env.mqtt, [`${discovery}/#`, `${prefix}/#`])
  let tw: Tidewatch | undefined
  t.teardown(async () => tw?.close())
  tw = await createTidewatch({
    plugins: [
      { plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${s.prefix}-.*`], stopTimeoutMs: 5000, gracePeriodMs: 1500 } },
      { plugin: registryPlugin, options: { tlsSkip: true } },
      { plugin: mqttPlugin, options: { url: `mqtt://${env.mqtt}`, topicPrefix: prefix, discoveryPrefix: discovery, clientId: node } },
    ],
  })

  // Discovery at start, from the target list: retained, so Home Assistant finds it whenever it subscribes.
  await sub.next(config(plain.name))
  await sub.next(config(labelled.name))
  const retained = await retainedOn(env.mqtt, config(plain.name))
  t.ok(retained, 'the discovery config is retained')
  const cfg = JSON.parse(retained?.payload ?? '{}') as Record<string, unknown>
  t.match(cfg, {
    name: plain.name,
    unique_id: `${node}_${plain.name}`,
    state_topic: state(plain.name),
    command_topic: `${prefix}/${plain.name}/command`,
    payload_install: 'install',
    availability_topic: `${prefix}/availability`,
    payload_available: 'online',
    payload_not_available: 'offline',
    device: { identifiers: [node], manufacturer: 'Tidewatch' },
  })
  t.equal((await retainedOn(env.mqtt, `${prefix}/availability`))?.payload, 'online', 'availability online, retained')

  const first = JSON.parse((await sub.next(state(plain.name))).payload) as Record<string, unknown>
  t.same(first, { installed_version: short(plain.image.digest), title: plain.image.ref, in_progress: false }, 'before a check: installed only')
  const firstLabelled = JSON.parse((await sub.next(state(labelled.name))).payload) as Record<string, unknown>
  t.match(firstLabelled, { installed_version: '1.4.2', release_url: 'https://example.test/acme/labelled' }, 'the OCI version and source labels')

  // A newer image for `plain`: the check's state names it as latest.
  const v2 = await pushNext(s, plain)
  let since = Date.now()
  await tw.check()
  const stale = JSON.parse((await sub.next(state(plain.name), undefined, 15_000, since)).payload) as Record<string, unknown>
  t.same(stale, { installed_version: short(plain.image.digest), latest_version: short(v2.digest), title: plain.image.ref, in_progress: false })
  const fresh = JSON.parse((await sub.next(state(labelled.name), undefined, 15_000, since)).payload) as Record<string, unknown>
  t.equal(fresh.latest_version, fresh.installed_version, 'an up-to-date container: latest == installed')

  // Home Assistant's Install button: the command topic's payload_install updates that container only.
  since = Date.now()
  await sub.client.publishAsync(`${prefix}/${plain.name}/command`, 'install', { qos: 1 })
  await sub.next(state(plain.name), (m) => (JSON.parse(m.payload) as { in_progress: boolean }).in_progress, 15_000, since)
  const done = JSON.parse(
    (await sub.next(state(plain.name), (m) => !(JSON.parse(m.payload) as { in_progress: boolean }).in_progress, 60_000, since)).payload,
  ) as Record<string, unknown>
  const now = await s.engine.getContainer(plain.name).inspect()
  t.equal(now.Image, v2.configDigest, 'the container runs the new image')
  t.same(done, { installed_version: short(v2.digest), latest_version: short(v2.digest), title: plain.image.ref, in_progress: false }, 'installed == latest')
  t.equal((await s.engine.getContainer(labelled.name).inspect()).Image, labelled.image.configDigest, 'the other container was left alone')

  // A container that went away: its retained config and state are cleared after the next full run.
  await s.engine.getContainer(labelled.name).remove({ force: true })
  since = Date.now()
  await tw.check()
  const cleared = await sub.next(config(labelled.name), (m) => m.payload === '', 15_000, since)
  t.equal(cleared.payload, '', 'an empty message clears the config')
  await waitFor(async () => (await retainedOn(env.mqtt, config(labelled.name), 400)) === undefined, 5000)
  t.equal(await retainedOn(env.mqtt, state(labelled.name)), undefined, 'no retained state either')
  t.ok(await retainedOn(env.mqtt, config(plain.name)), 'the remaining container keeps its entity')

  // Stopping says offline (Home Assistant shows every entity unavailable).
  await tw.close()
  tw = undefined
  t.equal((await retainedOn(env.mqtt, `${prefix}/availability`))?.payload, 'offline')

  // Leave the broker clean for the next run of the test.
  for (const topic of [config(plain.name), state(plain.name), `${prefix}/availability`]) await sub.client.publishAsync(topic, '', { qos: 1, retain: true })
})
