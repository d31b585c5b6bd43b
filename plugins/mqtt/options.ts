// The mqtt plugin's options, each declared once (docs/configuration.md#declaring-options); what each means
// for Home Assistant: docs/mqtt.md#options. Watchtower has no MQTT, so there are no WATCHTOWER_ aliases.
import { option, type OptionValues } from '../../core/index.js';
import { parseBrokerUrl } from './broker-url.js';

const group = 'Home Assistant (MQTT)';
const TOPIC_ACCEPTED = 'expected a topic without wildcards (+ #), empty levels or a leading /';

/** A topic prefix: levels separated by `/`, no wildcard, no empty level; a trailing `/` is dropped. */
export function parseTopicPrefix(raw: string): string {
  const value = raw.trim().replace(/\/+$/, '');
  if (value === '' || /[+#\0]/.test(value) || value.split('/').some((level) => level === '')) throw new Error(TOPIC_ACCEPTED);
  return value;
}

const NODE_ID = /^[A-Za-z0-9_-]+$/;

/** The client id is also the discovery node id, which Home Assistant limits to `[A-Za-z0-9_-]`. */
export function parseClientId(raw: string): string {
  const value = raw.trim();
  if (!NODE_ID.test(value)) throw new Error('expected letters, digits, _ or - only');
  return value;
}

export const mqttOptions = {
  url: option.string({
    flag: 'mqtt-url', valueName: '<url|file>', secret: true, parse: parseBrokerUrl, watchtowerEnv: null, group,
    description: 'MQTT broker to publish Home Assistant update entities to: mqtt://user:password@host:1883 (or mqtts://). Empty: off.',
  }),
  topicPrefix: option.string({
    flag: 'mqtt-topic-prefix', valueName: '<topic>', default: 'tidewatch', parse: parseTopicPrefix, watchtowerEnv: null, group,
    description: 'Prefix of the state, command and availability topics.',
  }),
  discoveryPrefix: option.string({
    flag: 'mqtt-discovery-prefix', valueName: '<topic>', default: 'homeassistant', parse: parseTopicPrefix, watchtowerEnv: null, group,
    description: "Home Assistant's discovery prefix.",
  }),
  clientId: option.string({
    flag: 'mqtt-client-id', valueName: '<id>', default: 'tidewatch', parse: parseClientId, pattern: NODE_ID.source,
    watchtowerEnv: null, group,
    description: 'MQTT client id, also the discovery node id: give each Tidewatch on one broker its own.',
  }),
};

export type MqttPluginOptions = Partial<OptionValues<typeof mqttOptions>>;
