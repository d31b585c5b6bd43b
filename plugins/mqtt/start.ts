// The mqtt plugin's runtime, imported only when the plugin is enabled (docs/performance.md#footprint): the
// broker connection (MQTT.js) and the bridge between the runs and Home Assistant.
import type { OptionValues, TidewatchCore } from '../../core/index.js';
import { HomeAssistantBridge } from './bridge.js';
import { BrokerConnection } from './connection.js';
import type { mqttOptions } from './options.js';
import { Topics } from './topics.js';

export function startMqtt(core: TidewatchCore, options: OptionValues<typeof mqttOptions>, pluginName: string): void {
  const logger = core.logger.child({ plugin: pluginName });
  const topics = new Topics(options.topicPrefix, options.discoveryPrefix, options.clientId);
  let bridge: HomeAssistantBridge | undefined;
  // The connection calls back only once connected, after this function returned: `bridge` is set by then.
  const connection = new BrokerConnection(
    { url: options.url, clientId: options.clientId, availabilityTopic: topics.availability, subscriptions: [topics.commands, topics.configs] },
    { onConnect: () => bridge?.connected(), onMessage: (topic, payload) => bridge?.onMessage(topic, payload) },
    logger,
  );
  const ready = new HomeAssistantBridge(core, topics, connection, logger);
  bridge = ready;
  core.hooks.event.tap(pluginName, (event) => ready.onEvent(event));
  core.onClose(async () => {
    await ready.idle();
    await connection.close();
  });
}
