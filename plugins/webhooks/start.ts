// The webhooks plugin at work (docs/webhooks.md), loaded when receivers are configured (its index declares the
// options only, docs/plugins.md#loading-code-at-first-use): the dispatcher that debounces pushes into targeted runs,
// and the receivers' routes on the HTTP API's registration point.
import { SIGNATURE_VERDICTS } from '../../contracts/index.js';
import { apiServes, optionByFlag } from '../../contracts/shared/api-endpoints.js';
import { errorMessage, exactNamePattern, httpRoutes, type TidewatchCore } from '../../core/index.js';
import { Dispatcher, type Job } from './dispatcher.js';
import { PLUGIN_NAME, type WebhookOptionValues } from './index.js';
import { countRefused, createHookHandler, hookRoutes, type WebhookResult } from './route.js';
import { selectTargets } from './selection.js';

/** The global `--tag-policy` when a plugin declares it (docs/webhooks.md#which-containers), else `digest`. */
function defaultTagPolicy(core: TidewatchCore): string {
  const policy = optionByFlag(core, 'tag-policy')?.value;
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

export function startWebhooks(core: TidewatchCore, options: WebhookOptionValues): void {
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
  if (!apiServes(core, 'hooks')) {
    logger.warn({ receivers: [...receivers.keys()] }, 'webhook receivers are configured but hooks is not in --http-api-endpoints: they answer 404');
  } else {
    logger.info({ receivers: options.receivers.map((r) => ({ name: r.name, kind: r.kind, action: r.action })) }, 'webhook receivers ready');
  }
  core.onClose(() => {
    stop.abort();
    dispatcher.close();
  });
}
