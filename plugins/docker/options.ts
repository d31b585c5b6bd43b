// The Docker runtime's options: the connection (Watchtower's --host, --tlsverify, --cert-path,
// --api-version), the selection filters of the Watchtower fork, and how replacements behave. The server
// maps its option table onto this shape; embedders pass it directly.
import type { JsonSchema } from '../../core/index.js';

/** Credentials for one pull, in the shape the Engine's X-Registry-Auth header takes. */
export interface RegistryAuth {
  readonly username?: string;
  readonly password?: string;
  readonly identitytoken?: string;
  readonly serveraddress: string;
}

/** Looks up pull credentials for an image reference (the registry plugin's `registryAuthFor`). */
export type AuthFor = (imageRef: string) => Promise<RegistryAuth | undefined>;

export interface DockerPluginOptions {
  /**
   * `unix:///path` or `tcp://host:port` (DOCKER_HOST semantics). Default: the DOCKER_HOST variable, else
   * `unix:///var/run/docker.sock` (the server passes its resolved --host; embedders get Docker's own rule).
   */
  host?: string;
  /** Use TLS and verify the daemon; `tcp://` becomes `https://`. */
  tlsVerify?: boolean;
  /** Directory holding `ca.pem`, `cert.pem`, `key.pem`. */
  certPath?: string;
  /** Pins the Engine API version (`1.41`); empty or unset negotiates. */
  apiVersion?: string;

  /** Positional container names: exact names or RE2 patterns anchored at both ends. */
  names?: string[];
  /** Watch only containers labelled `tidewatch.enable=true`. */
  labelEnable?: boolean;
  /** Container names or anchored patterns to leave alone. */
  disableContainers?: string[];
  /** Unset: only containers without a scope label (or scope `none`), unless Tidewatch's own container has one. */
  scope?: string;
  /** Also watch `created` and `exited` containers. */
  includeStopped?: boolean;
  /** Also watch `restarting` containers. */
  includeRestarting?: boolean;
  /** Read `com.docker.compose.depends_on` for ordering (default true). */
  useComposeDependsOn?: boolean;
  /** Containers inspected at once during discovery (default 10). */
  inspectConcurrency?: number;
  /** Overrides the detection of Tidewatch's own container id (mountinfo, cgroup, hostname). */
  selfContainerId?: string;

  /** Report stale containers, never replace them (also per container with the `monitor-only` label). */
  monitorOnly?: boolean;
  /** Let the `monitor-only` label override `monitorOnly` instead of OR-ing with it. */
  labelTakePrecedence?: boolean;
  /** Recreate replaced containers but do not start them (Tidewatch's own container is exempt). */
  noRestart?: boolean;
  /** Start recreated containers that were not running before. */
  reviveStopped?: boolean;
  /** Grace period before a stopping container is killed, in ms (default 30000); a container's StopTimeout wins. */
  stopTimeoutMs?: number;
  /** Remove the replaced container's anonymous volumes. */
  removeVolumes?: boolean;
  /** Stop, replace and start one container at a time, never stopping its dependents first. */
  rollingRestart?: boolean;
  /** Run the `lifecycle.*` label commands with docker exec. */
  enableLifecycleHooks?: boolean;
  /** Default user and group ids hooks run as (0: the container's default user). */
  lifecycleUid?: number;
  lifecycleGid?: number;
  /** Remove replaced images no container uses any more. */
  cleanup?: boolean;
  /**
   * How long a new container must stay running (and become healthy, when its image has a health check)
   * before the old one is removed, in ms (default 30000). 0: running once is enough.
   */
  gracePeriodMs?: number;
  /** Replace Tidewatch's own container (default true; the server turns it off when the API publishes ports). */
  selfUpdate?: boolean;
  /** Pull credentials; without it pulls are anonymous. */
  authFor?: AuthFor;
}

const names = { type: 'array', items: { type: 'string' } } as const;
const bool = { type: 'boolean' } as const;
const milliseconds = { type: 'integer', minimum: 0 } as const;

export const dockerOptionsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', pattern: '^(unix|npipe|tcp|http|https)://' },
    tlsVerify: bool,
    certPath: { type: 'string' },
    apiVersion: { type: 'string', pattern: '^(v?[0-9]+\\.[0-9]+)?$' },
    names,
    labelEnable: bool,
    disableContainers: names,
    scope: { type: 'string' },
    includeStopped: bool,
    includeRestarting: bool,
    useComposeDependsOn: bool,
    inspectConcurrency: { type: 'integer', minimum: 1 },
    selfContainerId: { type: 'string' },
    monitorOnly: bool,
    labelTakePrecedence: bool,
    noRestart: bool,
    reviveStopped: bool,
    stopTimeoutMs: milliseconds,
    removeVolumes: bool,
    rollingRestart: bool,
    enableLifecycleHooks: bool,
    lifecycleUid: { type: 'integer', minimum: 0, maximum: 2147483647 },
    lifecycleGid: { type: 'integer', minimum: 0, maximum: 2147483647 },
    cleanup: bool,
    gracePeriodMs: milliseconds,
    selfUpdate: bool,
    // A function: JSON schema cannot describe it, `index.ts` checks its type.
    authFor: {},
  },
};

/** Options with every default filled in, as the plugin's parts use them. */
export type ResolvedDockerOptions = Required<Omit<DockerPluginOptions, 'authFor' | 'selfContainerId' | 'apiVersion' | 'certPath'>> &
  Pick<DockerPluginOptions, 'authFor' | 'selfContainerId' | 'apiVersion' | 'certPath'>;

export function resolveOptions(options: DockerPluginOptions): ResolvedDockerOptions {
  if (options.authFor !== undefined && typeof options.authFor !== 'function') {
    throw new TypeError('options.authFor must be a function');
  }
  return {
    host: options.host || process.env['DOCKER_HOST'] || 'unix:///var/run/docker.sock',
    tlsVerify: options.tlsVerify ?? false,
    certPath: options.certPath || undefined,
    apiVersion: options.apiVersion || undefined,
    names: options.names ?? [],
    labelEnable: options.labelEnable ?? false,
    disableContainers: options.disableContainers ?? [],
    scope: options.scope ?? '',
    includeStopped: options.includeStopped ?? false,
    includeRestarting: options.includeRestarting ?? false,
    useComposeDependsOn: options.useComposeDependsOn ?? true,
    inspectConcurrency: options.inspectConcurrency ?? 10,
    selfContainerId: options.selfContainerId || undefined,
    monitorOnly: options.monitorOnly ?? false,
    labelTakePrecedence: options.labelTakePrecedence ?? false,
    noRestart: options.noRestart ?? false,
    reviveStopped: options.reviveStopped ?? false,
    stopTimeoutMs: options.stopTimeoutMs ?? 30_000,
    removeVolumes: options.removeVolumes ?? false,
    rollingRestart: options.rollingRestart ?? false,
    enableLifecycleHooks: options.enableLifecycleHooks ?? false,
    lifecycleUid: options.lifecycleUid ?? 0,
    lifecycleGid: options.lifecycleGid ?? 0,
    cleanup: options.cleanup ?? false,
    gracePeriodMs: options.gracePeriodMs ?? 30_000,
    selfUpdate: options.selfUpdate ?? true,
    authFor: options.authFor,
  };
}
