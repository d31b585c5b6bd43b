// End to end through the binary (docs/mqtt.md): TIDEWATCH_MQTT_URL with the broker's user and password, the
// discovery config and a check's state on the broker, offline on stop, and the password in no log line; a
// bad --mqtt-url exits 2 naming the option, without echoing the URL.
import t from 'tap'
import { requireBroker, retainedOn, subscribe } from '../../helpers/mqtt.js'
import { pushNext, runningOn, scenario } from '../../helpers/scenarios.js'
import { call, runBinary, startService, type RunningService } from '../../helpers/service.js'

const TOKEN = 'mqtt-e2e-token-0123456789'

t.test('a bad --mqtt-url exits 2 naming the option, never echoing the password', async (t) => {
  for (const url of ['http://user:hunter2@broker.test', 'mqtt://user:hunter2@broker.test/topic', 'mqtt://:hunter2@broker.test']) {
    const res = await runBinary(['--mqtt-url', url])
    t.equal(res.code, 2, url.replace('hunter2', '…'))
    t.match(res.stderr, /--mqtt-url \(TIDEWATCH_MQTT_URL\)/)
    t.notMatch(res.stdout + res.stderr, /hunter2/)
  }
})

t.test('the binary publishes discovery and states with --mqtt-url', async (t) => {
  const s = await scenario(t, 'mqtt-bin')
  if (!s) return
  const env = await requireBroker(t)
  if (!env) return
  const node = s.prefix
  const prefix = `tw-test/${node}`
  const discovery = `ha-test/${node}`
  const app = await runningOn(s, 'app')
  const config = `${discovery}/update/${node}/${app.name}/config`
  const state = `${prefix}/${app.name}/state`
  const sub = await subscribe(t, env.mqtt, [`${discovery}/#`, `${prefix}/#`])

  let service: RunningService | undefined
  t.teardown(async () => void (await service?.stop()))
  service = await startService(
    ['--host', env.dockerHost, '--http-api-endpoints', 'check,health', '--http-api-token', TOKEN, '--mqtt-topic-prefix', prefix,
      '--mqtt-discovery-prefix', discovery, '--mqtt-client-id', node, app.name],
    { TIDEWATCH_MQTT_URL: `mqtt://${env.authUser}:${env.authPassword}@${env.mqtt}` },
  )
  const cfg = JSON.parse((await sub.next(config)).payload) as Record<string, unknown>
  t.match(cfg, { name: app.name, unique_id: `${node}_${app.name}`, state_topic: state, payload_install: 'install' })

  const v2 = await pushNext(s, app)
  const since = Date.now()
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })
  t.equal(res.status, 200)
  const stale = JSON.parse((await sub.next(state, (m) => m.payload.includes('latest_version'), 15_000, since)).payload) as Record<string, unknown>
  t.equal(stale.latest_version, `sha256:${v2.digest.slice(7, 19)}`, 'the check named the newer digest')
  t.not(stale.latest_version, stale.installed_version, 'an update is shown')

  t.equal(await service.stop(), 0)
  t.equal((await retainedOn(env.mqtt, `${prefix}/availability`))?.payload, 'offline', 'offline once stopped')
  const logged = JSON.stringify(service.logs) + service.stderr.join('')
  t.notMatch(logged, new RegExp(env.authPassword), 'the password is in no log line')
  t.match(logged, /connected to the MQTT broker/)
  service = undefined
  for (const topic of [config, state, `${prefix}/availability`]) await sub.client.publishAsync(topic, '', { qos: 1, retain: true })
})
