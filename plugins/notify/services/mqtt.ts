// `mqtt://[user[:password]@]host[:port]/topic` and `mqtts://…`: shoutrrr's MQTT service
// (docs/notifications.md#services, docs/mqtt.md#notifications). The message body is published to the topic
// (a title is dropped, as shoutrrr does), over a connection opened for that one message. Query keys, as
// shoutrrr's: `qos` (0, 1, 2), `retained`, `clientid`, `cleansession`, `disabletls` (mqtts without TLS),
// `disabletlsverification`. Ports default to 1883 and 8883.
import { randomBytes } from 'node:crypto';
import { invalidOptions, type ConfigError } from '../../../core/index.js';
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';

export interface MqttNotifyOptions {
  /** Connecting and publishing together, default 10 s. */
  readonly timeoutMs?: number;
}

interface MqttTarget {
  readonly protocol: 'mqtt' | 'mqtts';
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly topic: string;
  readonly qos: 0 | 1 | 2;
  readonly retain: boolean;
  readonly clientId: string;
  readonly clean: boolean;
  readonly rejectUnauthorized: boolean;
}

const KEYS = ['qos', 'retained', 'clientid', 'cleansession', 'disabletls', 'disabletlsverification'];
const QOS: Readonly<Record<string, 0 | 1 | 2>> = {
  '0': 0, '1': 1, '2': 2, atmostonce: 0, atleastonce: 1, exactlyonce: 2, at_most_once: 0, at_least_once: 1, exactly_once: 2,
};

/** The one error `parse` throws: `mqtt: <what is wrong>`, naming the option, never a credential. */
function bad(scheme: string, what: string): ConfigError {
  return invalidOptions('notification-url', `${scheme}: ${what}`);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function bool(scheme: string, key: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.trim().toLowerCase();
  if (['yes', 'y', 'true', '1'].includes(v)) return true;
  if (['no', 'n', 'false', '0'].includes(v)) return false;
  throw bad(scheme, `parameter "${key}" must be yes or no`);
}

function parseTarget(url: URL): MqttTarget {
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  if (url.hostname === '') throw bad(scheme, 'the URL names no broker host');
  const topic = decode(url.pathname.replace(/^\//, ''));
  if (topic === '') throw bad(scheme, 'the URL names no topic (mqtt://host[:port]/topic)');
  if (/[+#]/.test(topic)) throw bad(scheme, 'a topic to publish to has no wildcards (+ #)');
  const query = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    const k = key.toLowerCase();
    if (!KEYS.includes(k)) throw bad(scheme, `unknown parameter "${key}"`);
    if (!query.has(k)) query.set(k, value);
  }
  if (url.password !== '' && url.username === '') throw bad(scheme, 'a password needs a user name');
  const qosRaw = (query.get('qos') ?? '0').trim().toLowerCase();
  const qos = QOS[qosRaw === '' ? '0' : qosRaw];
  if (qos === undefined) throw bad(scheme, 'parameter "qos" must be 0, 1 or 2');
  const tls = scheme === 'mqtts' && !bool(scheme, 'disabletls', query.get('disabletls'), false);
  return {
    protocol: tls ? 'mqtts' : 'mqtt',
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (scheme === 'mqtts' ? 8883 : 1883) : Number(url.port),
    ...(url.username === '' ? {} : { username: decode(url.username) }),
    ...(url.password === '' ? {} : { password: decode(url.password) }),
    topic,
    qos,
    retain: bool(scheme, 'retained', query.get('retained'), false),
    // A fixed id would make two deliveries at once throw each other off the broker: a fresh one unless given.
    clientId: query.get('clientid') || `tidewatch-${randomBytes(4).toString('hex')}`,
    clean: bool(scheme, 'cleansession', query.get('cleansession'), true),
    rejectUnauthorized: !bool(scheme, 'disabletlsverification', query.get('disabletlsverification'), false),
  };
}

/** The URL with its password replaced by `REDACTED`. */
function redact(url: URL): string {
  const auth = url.username === '' ? '' : `${url.username}${url.password === '' ? '' : ':REDACTED'}@`;
  return `${url.protocol}//${auth}${url.host}${url.pathname}${url.search}`;
}

/** Connects, publishes one message, disconnects; rejects on a refusal, a lost connection, the timeout or `signal`. */
async function publishOnce(target: MqttTarget, body: string, signal: AbortSignal, timeoutMs: number): Promise<void> {
  const { connect } = await import('mqtt');
  const stop = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  stop.throwIfAborted();
  const { topic, qos, retain, ...connection } = target;
  const client = connect({ ...connection, reconnectPeriod: 0, connectTimeout: timeoutMs });
  let fail: (err: unknown) => void = () => undefined;
  const closed = () => fail(new Error('the broker closed the connection'));
  const aborted = () => fail(stop.reason);
  // Kept for the client's whole life: an 'error' event nobody listens to would crash the process.
  client.on('error', (err) => fail(err));
  try {
    await new Promise<void>((resolve, reject) => {
      fail = (err) => reject(err instanceof Error ? err : new Error(String(err)));
      stop.addEventListener('abort', aborted, { once: true });
      client.once('close', closed);
      client.once('connect', () => {
        client.off('close', closed);
        client.publish(topic, body, { qos, retain }, (err) => (err ? fail(err) : resolve()));
      });
    });
  } finally {
    stop.removeEventListener('abort', aborted);
    client.off('close', closed);
    await client.endAsync().catch(() => undefined);
  }
}

export function createMqttService(options: MqttNotifyOptions = {}): NotificationService {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    schemes: ['mqtt', 'mqtts'],
    parse(url: URL): NotificationSender {
      const target = parseTarget(url);
      return {
        service: 'mqtt',
        redacted: redact(url),
        send: (message: NotificationMessage, signal: AbortSignal) => publishOnce(target, message.body, signal, timeoutMs),
      };
    },
  };
}
