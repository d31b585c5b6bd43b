// The mqtt plugin (`--mqtt-url`): every watched container as a Home Assistant update entity over MQTT
// (docs/mqtt.md). Off without a broker URL. It only observes runs through the `event` hook and starts
// targeted updates through the core, so it can neither block nor fail a run. Its runtime (MQTT.js) loads
// in `apply`, only when enabled (docs/performance.md#footprint).
import { definePlugin, errorMessage, invalidOptions } from '../../core/index.js';
import { parseBrokerUrl } from './broker-url.js';
import { mqttOptions } from './options.js';

export const PLUGIN_NAME = 'mqtt';

export const mqttPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: mqttOptions,
  enabled: (options) => options.url !== '',
  // The command line's parser has checked the URL already; an embedder's typed value is checked here.
  check(options, label) {
    try {
      parseBrokerUrl(options.url);
    } catch (err) {
      throw invalidOptions('mqtt-url', `invalid value for ${label('url')}: ${errorMessage(err)}`);
    }
  },
  async apply(core, options) {
    const { startMqtt } = await import('./start.js');
    startMqtt(core, options, PLUGIN_NAME);
  },
});

export type { MqttPluginOptions } from './options.js';
