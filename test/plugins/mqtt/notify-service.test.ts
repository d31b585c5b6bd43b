// The mqtt:// notification service (shoutrrr's format, docs/mqtt.md#notifications): URL errors that name the
// option and never the password, and delivery to a subscriber on the real broker, with credentials.
import t from 'tap'
import { isTidewatchError } from '../../../core/index.js'
import { createMqttService } from '../../../plugins/notify/services/mqtt.js'
import { requireBroker, retainedOn, subscribe } from '../../helpers/mqtt.js'
import { testPrefix } from '../../helpers/images.js'

const service = createMqttService({ timeoutMs: 3000 })
const message = (body: string) => ({ title: 'Watchtower updates on host', body })

t.test('URL errors name the option and scheme, never the password', async (t) => {
  t.same(service.schemes, ['mqtt', 'mqtts'])
  const cases: [string, RegExp][] = [
    ['mqtt://user:s3cr3t@broker.test', /mqtt: the URL names no topic/],
    ['mqtt://user:s3cr3t@broker.test/a/+/b', /no wildcards/],
    ['mqtt://user:s3cr3t@broker.test/alerts?qos=3', /"qos" must be 0, 1 or 2/],
    ['mqtt://user:s3cr3t@broker.test/alerts?retained=maybe', /"retained" must be yes or no/],
    ['mqtts://user:s3cr3t@broker.test/alerts?colour=red', /unknown parameter "colour"/],
    ['mqtt://:s3cr3t@broker.test/alerts', /a password needs a user name/],
  ]
  for (const [url, expected] of cases) {
    const err = t.throws(() => service.parse(new URL(url))) as Error
    t.match(err.message, expected, url.replace('s3cr3t', '…'))
    t.notMatch(err.message, /s3cr3t/, 'the password is not echoed')
    t.ok(isTidewatchError(err) && (err as { option?: string }).option === 'notification-url', 'a configuration error naming --notification-url')
  }
  const sender = service.parse(new URL('mqtt://user:s3cr3t@broker.test:1884/home/alerts?qos=1&retained=yes'))
  t.equal(sender.service, 'mqtt')
  t.equal(sender.redacted, 'mqtt://user:REDACTED@broker.test:1884/home/alerts?qos=1&retained=yes')
})

t.test('delivers the body to a subscriber, with credentials, retained when asked', async (t) => {
  const env = await requireBroker(t)
  if (!env) return
  const topic = `tw-test/${testPrefix('notify')}/alerts`
  const sub = await subscribe(t, env.mqtt, [topic])
  const url = `mqtt://${env.authUser}:${env.authPassword}@${env.mqtt}/${topic}?qos=1`
  await service.parse(new URL(url)).send(message('2 containers updated'), AbortSignal.timeout(5000))
  const got = await sub.next(topic)
  t.equal(got.payload, '2 containers updated', 'the body, as published (the title is dropped, as shoutrrr does)')
  t.equal(await retainedOn(env.mqtt, topic, 300), undefined, 'not retained by default')

  await service.parse(new URL(`${url}&retained=yes`)).send(message('kept'), AbortSignal.timeout(5000))
  t.equal((await retainedOn(env.mqtt, topic))?.payload, 'kept', 'retained=yes leaves it for later subscribers')
  await sub.client.publishAsync(topic, '', { qos: 1, retain: true })
})

t.test('a refused or unreachable broker rejects the delivery', async (t) => {
  const env = await requireBroker(t)
  if (!env) return
  const wrong = service.parse(new URL(`mqtt://${env.authUser}:wrong-password@${env.mqtt}/tw-test/refused`))
  await t.rejects(wrong.send(message('x'), AbortSignal.timeout(5000)), /not authori[sz]ed/i, 'a wrong password is refused')
  // A loopback port nothing listens on: refused at once, never a hang.
  const down = service.parse(new URL('mqtt://127.0.0.1:9/tw-test/down'))
  const started = Date.now()
  await t.rejects(down.send(message('x'), AbortSignal.timeout(5000)))
  t.ok(Date.now() - started < 4000, 'fails fast')
  const aborted = new AbortController()
  aborted.abort(new Error('run stopping'))
  await t.rejects(service.parse(new URL(`mqtt://${env.mqtt}/tw-test/x`)).send(message('x'), aborted.signal), /run stopping/)
})
