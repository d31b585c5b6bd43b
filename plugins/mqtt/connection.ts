// The one MQTT connection of the plugin (docs/mqtt.md#availability-and-failures): Tidewatch's last will marks every entity
// unavailable (`offline`, retained) when the process dies, `online` is published on every (re)connect, and
// MQTT.js reconnects by itself. Publishing never throws and never waits: a message that cannot go out is
// logged and dropped, because every (re)connect republishes the whole current picture (`onConnect`).
import { connect, type MqttClient } from 'mqtt';
import { errorMessage, type Logger } from '../../core/index.js';
import { brokerAddress, redactBrokerUrl } from './broker-url.js';
import { OFFLINE, ONLINE } from './topics.js';

export interface ConnectionSettings {
  readonly url: string;
  readonly clientId: string;
  readonly availabilityTopic: string;
  /** Topic filters to subscribe to on every connect. */
  readonly subscriptions: readonly string[];
  readonly reconnectMs?: number;
}

export interface ConnectionHandlers {
  onConnect(): void;
  onMessage(topic: string, payload: string, retained: boolean): void;
}

const CLOSE_WAIT_MS = 2000;

export class BrokerConnection {
  readonly #client: MqttClient;
  readonly #logger: Logger;
  readonly #settings: ConnectionSettings;
  #lastError = '';

  constructor(settings: ConnectionSettings, handlers: ConnectionHandlers, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger.child({ broker: redactBrokerUrl(settings.url) });
    const address = brokerAddress(settings.url);
    this.#client = connect({
      ...address,
      clientId: settings.clientId,
      clean: true,
      reconnectPeriod: settings.reconnectMs ?? 5000,
      connectTimeout: 10_000,
      will: { topic: settings.availabilityTopic, payload: Buffer.from(OFFLINE), qos: 1, retain: true },
    });
    this.#client.on('connect', () => {
      this.#lastError = '';
      this.#logger.info('connected to the MQTT broker');
      this.publish(settings.availabilityTopic, ONLINE);
      this.#client.subscribe([...settings.subscriptions], { qos: 1 }, (err) => {
        if (err) this.#logger.warn({ err: errorMessage(err) }, 'MQTT subscribe failed');
      });
      handlers.onConnect();
    });
    this.#client.on('message', (topic, payload, packet) => handlers.onMessage(topic, payload.toString('utf8'), packet.retain));
    this.#client.on('error', (err) => {
      // One line per distinct failure, not one per reconnect attempt.
      if (err.message === this.#lastError) return;
      this.#lastError = err.message;
      this.#logger.warn({ err: err.message }, 'MQTT connection error');
    });
    this.#client.on('offline', () => this.#logger.debug('MQTT broker unreachable; reconnecting'));
  }

  get connected(): boolean {
    return this.#client.connected;
  }

  /** Retained, QoS 1; an empty payload clears the retained message. */
  publish(topic: string, payload: string): void {
    if (!this.#client.connected) return;
    this.#client.publish(topic, payload, { qos: 1, retain: true }, (err) => {
      if (err) this.#logger.warn({ topic, err: errorMessage(err) }, 'MQTT publish failed');
    });
  }

  /** Says `offline` (a clean disconnect sends no last will) and closes, waiting at most 2 s for the broker. */
  async close(): Promise<void> {
    const client = this.#client;
    if (client.connected) {
      const sent = client.publishAsync(this.#settings.availabilityTopic, OFFLINE, { qos: 1, retain: true }).catch(() => undefined);
      await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    }
    await client.endAsync(true).catch(() => undefined);
  }
}
