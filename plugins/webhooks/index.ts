// The `webhooks` plugin (docs/webhooks.md): receivers for registry and Git push notifications. Their routes
// are served by the HTTP API (endpoint name `hooks`) through the core's HTTP_ROUTES registration point, so
// neither plugin imports the other; a push becomes a targeted check or update of the containers on that
// repository through the normal run path (`core.check` / `core.update` with `trigger: webhook:<receiver>`).
import { SIGNATURE_VERDICTS } from '../../contracts/index.js';
import { definePlugin, errorMessage, exactNamePattern, httpRoutes, option, type OptionValues, type TidewatchCore } from '../../core/index.js';
import { Dispatcher, type Job } from './dispatcher.js';
import { parseReceivers, receiversSchema, type WebhookReceiver } from './receivers.js';
import { countRefused, createHookHandler, hookRoutes, type WebhookResult } from './route.js';
import { selectTargets } from './selection.js';

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

export type WebhookPluginOptions = Partial<OptionValues<typeof webhookOptions>>;

/** Another plugin's option value by its flag, read from the applied options (that plugin is not imported). */
function optionValue(core: TidewatchCore, flag: string): { value: unknown; enabled: boolean } | undefined {
  for (const applied of core.options) {
    for (const [key, spec] of Object.entries(applied.specs)) {
      if (spec.flag === flag) return { value: applied.values[key], enabled: applied.enabled };
    }
  }
  return undefined;
}

/** Whether --http-api-endpoints enables `hooks`. */
function hooksEnabled(core: TidewatchCore): boolean {
  const endpoints = optionValue(core, 'http-api-endpoints');
  return endpoints !== undefined && endpoints.enabled && Array.isArray(endpoints.value) && endpoints.value.includes('hooks');
}

/** The global `--tag-policy` when a plugin declares it (docs/webhooks.md#which-containers), else `digest`. */
function defaultTagPolicy(core: TidewatchCore): string {
  const policy = optionValue(core, 'tag-policy')?.value;
  return typeof policy === 'string' && policy !== '' ? policy : 'digest';
}

async function runJob(core: TidewatchCore, job: Job, signal: AbortSignal): Promise<void> {
  const { receiver, batch } = job;
  const log = core.logger.child({ plugin: PLUGIN_NAME, receiver: receiver.name });
  const trigger = `webhook:${receiver.name}`;
  const targets = await core.targets({ trigger, signal });
  const names = selectTargets(targets, batch, (t) => core.watchPath(t), defaultTagPolicy(core));
  if (names.length === 0) {
    log.info({ repository: batch.repository }, 'webhook: no watched container on this repository');
    return;
  }
  // A signature arrived: the verdict that found its image unsigned is no longer believed (docs/webhooks.md#signatures-arriving).
  const verdicts = core.services.get(SIGNATURE_VERDICTS);
  for (const digest of batch.signed) verdicts?.recheck(batch.repository, digest);
  log.info(
    { repository: batch.repository, containers: names, action: receiver.action, waitedMs: Date.now() - job.firstAt, ...(batch.signed.size > 0 ? { signed: [...batch.signed] } : {}) },
    'webhook: starting a targeted run',
  );
  // A hint only: the run re-checks the registry (or Git host) and applies through the normal path.
  const request = { filters: { containers: names.map(exactNamePattern) }, trigger, signal };
  if (receiver.action === 'update') await core.update(request);
  else await core.check(request);
}

export const webhooksPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: webhookOptions,
  enabled: (options) => options.receivers.length > 0,
  apply(core, options) {
    const logger = core.logger.child({ plugin: PLUGIN_NAME });
    const receivers = new Map(options.receivers.map((r) => [r.name, r]));
    const stop = new AbortController();
    const dispatcher = new Dispatcher({
      debounceMs: options.debounceMs,
      maxWaitMs: Math.max(options.debounceMs * 4, 10_000),
      backlog: options.backlog,
      logger,
      run: (job) =>
        runJob(core, job, stop.signal).catch((err: unknown) => {
          logger.error({ receiver: job.receiver.name, repository: job.batch.repository, err: errorMessage(err) }, 'webhook run failed');
        }),
    });
    const count = (receiver: string, result: WebhookResult): void => core.emit('webhook', { receiver, result });
    const handle = createHookHandler({ receivers, dispatcher, logger, count });
    const routes = httpRoutes(core.services);
    for (const route of hookRoutes(handle, countRefused({ receivers, count }))) routes.register(route);
    if (!hooksEnabled(core)) {
      logger.warn({ receivers: [...receivers.keys()] }, 'webhook receivers are configured but hooks is not in --http-api-endpoints: they answer 404');
    } else {
      logger.info({ receivers: options.receivers.map((r) => ({ name: r.name, kind: r.kind, action: r.action })) }, 'webhook receivers ready');
    }
    core.onClose(() => {
      stop.abort();
      dispatcher.close();
    });
  },
});

export default webhooksPlugin;
