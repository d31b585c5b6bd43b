// The `webhooks` plugin (docs/webhooks.md): receivers for registry and Git push notifications. Their routes
// are served by the HTTP API (endpoint name `hooks`) through the core's HTTP_ROUTES registration point, so
// neither plugin imports the other; a push becomes a targeted check or update of the containers on that
// repository through the normal run path (`core.check` / `core.update` with `trigger: webhook:<receiver>`). This module
// declares the options; the receivers' runtime (start.ts) loads when one is configured.
import { definePlugin, option, type OptionValues } from '../../core/index.js';
import { parseReceivers, receiversSchema, type WebhookReceiver } from './receivers.js';

export const PLUGIN_NAME = 'webhooks';
const group = 'Webhooks';

export const webhookOptions = {
  receivers: option.custom<WebhookReceiver[]>({
    flag: 'webhook', env: 'WEBHOOKS', watchtowerEnv: null, fileKey: 'webhooks', kind: 'list', join: ';', default: [],
    valueName: '<NAME=KIND,…>', secret: true, parse: parseReceivers, schema: receiversSchema, group,
    // A file given as the whole value holds one spec per line.
    fromSecretFile: (content) => content.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join(';'),
    description:
      'A webhook receiver: NAME=KIND[,token=VALUE_OR_FILE][,secret=VALUE_OR_FILE][,action=check|update]; KIND is distribution, ' +
      'dockerhub, github, harbor, quay or generic. Repeatable; TIDEWATCH_WEBHOOKS separates specs with ";". Served at ' +
      '/v1/hooks/NAME when hooks is in --http-api-endpoints.',
  }),
  debounceMs: option.duration({
    flag: 'webhook-debounce', default: 1_500, watchtowerEnv: null, group,
    description: 'Quiet time after a repository\'s last webhook before its check or update starts (one run per burst).',
  }),
  backlog: option.integer({
    flag: 'webhook-backlog', default: 100, min: 1, max: 10_000, watchtowerEnv: null, group,
    description: 'Repositories that may wait for a webhook run at once; more get 429 and the sender retries.',
  }),
};

export type WebhookOptionValues = OptionValues<typeof webhookOptions>;
export type WebhookPluginOptions = Partial<WebhookOptionValues>;

export const webhooksPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: webhookOptions,
  enabled: (options) => options.receivers.length > 0,
  async apply(core, options) {
    const { startWebhooks } = await import('./start.js');
    startWebhooks(core, options);
  },
});

export default webhooksPlugin;
