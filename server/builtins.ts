// The built-in plugins and their options, derived from the configuration. The order is the tap
// order: the runtime first, third-party plugins next (so a third-party staleness source may claim
// targets before the built-in ones; stages decide among sources anyway), then the Git source, no-pull,
// the registry source, cooldown, and last the HTTP API, which serves what the others provide.
import type { PluginUse, TidewatchPlugin } from '../core/index.js';
import { cooldownPlugin } from '../plugins/cooldown/index.js';
import { dockerPlugin } from '../plugins/docker/index.js';
import { gitPlugin } from '../plugins/git/index.js';
import { createHttpApiPlugin } from '../plugins/http-api/index.js';
import { noPullPlugin } from '../plugins/no-pull/index.js';
import { registryAuthFor } from '../plugins/registry/credentials.js';
import { registryPlugin } from '../plugins/registry/index.js';
import { configView, type ResolvedConfig } from './config/index.js';

export type PluginPlacement = PluginUse<object>;

/** Unset options are left out rather than passed as undefined, so each plugin's schema defaults apply. */
function use<O extends object>(plugin: TidewatchPlugin<O>, options: O): PluginPlacement {
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return { plugin, options: defined } as PluginPlacement;
}

export function builtinPlugins(
  resolved: ResolvedConfig,
  env: NodeJS.ProcessEnv,
  thirdParty: readonly PluginPlacement[],
): PluginPlacement[] {
  const { config } = resolved;
  const credentials = { repoUser: env['REPO_USER'] || undefined, repoPass: env['REPO_PASS'] || undefined };
  const plugins: PluginPlacement[] = [
    use(dockerPlugin, {
      host: config.host,
      tlsVerify: config.tlsverify,
      certPath: config.certPath || undefined,
      apiVersion: config.apiVersion || undefined,
      names: resolved.names,
      labelEnable: config.labelEnable,
      disableContainers: config.disableContainers,
      scope: config.scope || undefined,
      includeStopped: config.includeStopped,
      includeRestarting: config.includeRestarting,
      useComposeDependsOn: config.useComposeDependsOn,
      monitorOnly: config.monitorOnly,
      labelTakePrecedence: config.labelTakePrecedence,
      noRestart: config.noRestart,
      reviveStopped: config.reviveStopped,
      stopTimeoutMs: config.stopTimeout,
      removeVolumes: config.removeVolumes,
      rollingRestart: config.rollingRestart,
      enableLifecycleHooks: config.enableLifecycleHooks,
      lifecycleUid: config.lifecycleUid,
      lifecycleGid: config.lifecycleGid,
      cleanup: config.cleanup,
      gracePeriodMs: config.updateGracePeriod,
      // Watchtower skips self-update in run-once mode: the process is about to exit anyway.
      selfUpdate: !config.runOnce,
      // The engine's pull authenticates exactly as the registry source's checks do.
      authFor: (imageRef: string) => registryAuthFor(imageRef, credentials),
    }),
    ...thirdParty,
    use(gitPlugin, {
      token: config.gitToken || undefined,
      noPull: config.noPull,
      labelTakePrecedence: config.labelTakePrecedence,
    }),
    use(noPullPlugin, { noPull: config.noPull, labelTakePrecedence: config.labelTakePrecedence }),
    use(registryPlugin, {
      tlsSkip: config.registryTlsSkip,
      concurrency: config.registryConcurrency,
      ...credentials,
    }),
    use(cooldownPlugin, { delayMs: config.cooldownDelay }),
  ];
  if (config.httpApiEndpoints.length > 0) {
    plugins.push(
      use(createHttpApiPlugin(), {
        endpoints: config.httpApiEndpoints,
        token: config.httpApiToken || undefined,
        eventsToken: config.httpApiEventsToken || undefined,
        host: config.httpApiHost,
        port: config.httpApiPort,
        rateLimit: config.httpApiRateLimit,
        trustedProxies: config.httpApiTrustedProxies,
        proxyHeader: config.httpApiProxyHeader,
        corsOrigins: config.httpApiCorsOrigins,
        checkTimeoutMs: config.httpApiCheckTimeout,
        updateTimeoutMs: config.httpApiUpdateTimeout,
        eventsMaxSubscribers: config.httpApiEventsMaxSubscribers,
        tlsCert: config.httpApiTlsCert || undefined,
        tlsKey: config.httpApiTlsKey || undefined,
        configView: configView(resolved),
      }),
    );
  }
  return plugins;
}
