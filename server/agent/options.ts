// The agent's lean option entry (docs/fleet.md#footprint): `tidewatch agent` resolves its options by the same
// rules and the same declarations as the full table (server/config/resolve-values.ts: flags, TIDEWATCH_* and
// Docker's variables, `*_FILE`-style secret files, Watchtower aliases, the config file), over a table of the
// few plugins whose options an agent reads: the server's own, the Docker runtime's connection, the state's
// --data-dir and the agents plugin's. Loading every built-in plugin's declarations (and through them the
// core's engine) cost an idle agent about 4 MB for options it never reads.
//
// Whatever this table cannot answer as the full one would, it leaves to the full one (`undefined`): a flag it
// does not know, a variable or config-file key of another option, container names, --plugins, --help,
// --version, --health-check, and every error (so an exit-2 line is the full table's, word for word). Values
// it does give are the full table's (test/server/agent-options.test.ts).
import { ConfigError } from '../../core/errors.js';
import { envNames } from '../../core/option.js';
import type { TidewatchPlugin } from '../../core/plugin.js';
import { SHARED_OPTIONS } from '../../core/shared-options.js';
import { agentOptions } from '../../plugins/agents/options.js';
import { dockerConnectionOptions } from '../../plugins/docker/connection-options.js';
import { buildTable } from '../config/table.js';
import { readBootstrap, resolvePlugins, type ResolveInput } from '../config/resolve-values.js';
import { servicePlugin } from '../config/service-options.js';
import { agentSettings, type AgentSettings } from './settings.js';

/** Option carriers named as the plugins that declare them, so agentSettings reads both resolutions alike. */
const carrier = (name: string, options: TidewatchPlugin<object>['options']): TidewatchPlugin<object> =>
  Object.freeze({ name, options, apply() {} }) as TidewatchPlugin<object>;

export const AGENT_TABLE_PLUGINS: readonly TidewatchPlugin<object>[] = Object.freeze([
  servicePlugin,
  carrier('docker', dockerConnectionOptions),
  carrier('state', { dataDir: SHARED_OPTIONS.dataDir }),
  carrier('agents', agentOptions),
]);

/**
 * The un-prefixed variables the full table reads (options' `externalEnv`); test/server/agent-options.test.ts
 * holds that this list has every one. Any of them set for an option outside the agent's table, or any
 * TIDEWATCH_/WATCHTOWER_ variable the agent's table does not read, leaves the options to the full table.
 */
export const TABLE_EXTERNAL_ENV: readonly string[] = Object.freeze([
  'DOCKER_API_VERSION', 'DOCKER_CERT_PATH', 'DOCKER_CONFIG', 'DOCKER_HOST', 'DOCKER_TLS_VERIFY', 'NO_COLOR', 'REPO_PASS', 'REPO_USER',
]);

let known: Set<string> | undefined;

function foreignVariable(env: NodeJS.ProcessEnv): string | undefined {
  known ??= new Set(AGENT_TABLE_PLUGINS.flatMap((plugin) => Object.values(plugin.options ?? {}).flatMap((spec) => envNames(spec))));
  const read = known;
  return Object.keys(env).find(
    (name) => env[name] !== undefined && !read.has(name) && (/^(TIDEWATCH|WATCHTOWER)_/.test(name) || TABLE_EXTERNAL_ENV.includes(name)),
  );
}

/** The agent's settings from its lean table, or `undefined`: the full table must decide (see above). */
export function leanAgentSettings(input: Omit<ResolveInput, 'thirdParty'>): AgentSettings | undefined {
  if (foreignVariable(input.env) !== undefined) return undefined;
  try {
    if (readBootstrap(input).specifiers.length > 0) return undefined;
    const resolved = resolvePlugins(AGENT_TABLE_PLUGINS, input);
    if (resolved.help !== undefined || resolved.version === true || resolved.config.healthCheck || resolved.names.length > 0) return undefined;
    return agentSettings(resolved);
  } catch (err) {
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
}

/** The lean table itself, for the tests and the docs: every flag an agent may be given without the full table. */
export function agentTable(): ReturnType<typeof buildTable> {
  return buildTable(AGENT_TABLE_PLUGINS);
}
