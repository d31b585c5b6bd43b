// The test environment's MQTT broker (Debian's mosquitto, started by scripts/test-env.sh) and a subscriber that
// records what arrives. Like requireEnv: a missing broker skips locally and FAILS in CI (CI=true).
import { connectAsync, type MqttClient } from 'mqtt'
import { requireEnv, waitFor, type TestEnv } from './env.js'

export interface BrokerEnv extends TestEnv {
  mqtt: string
}

interface SkippableTest {
  plan(n: number, comment?: string): void
  teardown(fn: () => unknown): void
}

/** The environment with its broker, or undefined after marking the test skipped (locally only). */
export async function requireBroker(t: SkippableTest): Promise<BrokerEnv | undefined> {
  const env = await requireEnv(t)
  if (!env) return undefined
  if (!env.mqtt) {
    const msg = 'no MQTT broker in the test environment (install mosquitto, then bash scripts/test-env.sh up)'
    if (process.env.CI === 'true') throw new Error(`${msg} (CI=true: tests that need it must not be skipped)`)
    t.plan(0, msg)
    return undefined
  }
  return env as BrokerEnv
}

export interface Received {
  readonly topic: string
  readonly payload: string
  readonly retain: boolean
  readonly at: number
}

export interface Subscriber {
  readonly client: MqttClient
  /** Every message, in order of arrival. */
  readonly messages: Received[]
  /** The last message on the topic, if any. */
  last(topic: string): Received | undefined
  /** Waits for a message on `topic` (arrived after `since`, default any) that satisfies `test`. */
  next(topic: string, test?: (m: Received) => boolean, timeoutMs?: number, since?: number): Promise<Received>
  close(): Promise<void>
}

/** A client subscribed to `filters` (QoS 1), closed at teardown. */
export async function subscribe(t: SkippableTest, broker: string, filters: string[], auth?: { username: string; password: string }): Promise<Subscriber> {
  const client = await connectAsync(`mqtt://${broker}`, { reconnectPeriod: 0, connectTimeout: 5000, ...auth })
  const messages: Received[] = []
  client.on('message', (topic, payload, packet) => {
    messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain, at: Date.now() })
  })
  await client.subscribeAsync(filters, { qos: 1 })
  const close = () => client.endAsync(true).catch(() => undefined)
  t.teardown(close)
  return {
    client,
    messages,
    last: (topic) => messages.filter((m) => m.topic === topic).at(-1),
    next: (topic, test = () => true, timeoutMs = 15_000, since = 0) =>
      waitFor(() => messages.find((m) => m.topic === topic && m.at >= since && test(m)), timeoutMs),
    close,
  }
}

/** The retained message a fresh subscriber gets on `topic` within `ms`, or undefined when there is none. */
export async function retainedOn(broker: string, topic: string, ms = 700): Promise<Received | undefined> {
  const client = await connectAsync(`mqtt://${broker}`, { reconnectPeriod: 0, connectTimeout: 5000 })
  try {
    const got: Received[] = []
    client.on('message', (t, payload, packet) => got.push({ topic: t, payload: payload.toString('utf8'), retain: packet.retain, at: Date.now() }))
    await client.subscribeAsync(topic, { qos: 1 })
    await new Promise((resolve) => setTimeout(resolve, ms))
    return got.find((m) => m.retain)
  } finally {
    await client.endAsync(true).catch(() => undefined)
  }
}
