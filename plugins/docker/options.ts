// The Docker runtime's options, each declared once (docs/configuration.md#declaring-options): the
// connection (Watchtower's --host, --tlsverify, --cert-path, --api-version, with Docker's own variables
// read last), the Watchtower fork's selection filters, and how replacements behave.
import { SELECTION_OPTIONS, SHARED_OPTIONS, option, type OptionValues } from '../../core/index.js';
import type { RegistryAuth, Snapshots } from '../../contracts/index.js';
import { dockerConnectionOptions } from './connection-options.js';
import type { SshSettings } from './engine/ssh/settings.js';

const connection = 'Docker connection';
const selection = 'Container selection';
const behaviour = 'Update behaviour';

export const dockerOptions = {
  ...dockerConnectionOptions,

  // Shared with the swarm runtime, which selects services by the same rules (docs/swarm.md).
  // The eight selection filters, declared once in the core and applied by it (core.applySelection).
  ...SELECTION_OPTIONS,
  includeStopped: option.boolean({
    flag: 'include-stopped', short: 'S', group: selection, description: 'Also watch created and exited containers.',
  }),
  includeRestarting: option.boolean({
    flag: 'include-restarting', group: selection, description: 'Also watch restarting containers.',
  }),
  reviveStopped: option.boolean({
    flag: 'revive-stopped', group: selection, description: 'Start updated containers that were not running before.',
  }),
  useComposeDependsOn: option.boolean({
    flag: 'use-compose-depends-on', default: true, group: behaviour,
    description: 'Order updates and restarts by the com.docker.compose.depends_on label.',
  }),

  cleanup: option.boolean({
    flag: 'cleanup', short: 'c', group: behaviour, description: 'Remove the old image after a successful update.',
  }),
  rollbackRetentionMs: option.duration({
    flag: 'rollback-retention', default: 168 * 3_600_000, group: behaviour,
    description: 'With --cleanup and a --data-dir, how long an updated container\'s previous image is kept for a rollback (docs/state.md).',
  }),
  removeVolumes: option.boolean({
    flag: 'remove-volumes', group: behaviour, description: "Remove the old container's anonymous volumes.",
  }),
  noRestart: option.boolean({
    flag: 'no-restart', group: behaviour, description: 'Recreate updated containers but do not start them.',
  }),
  monitorOnly: SHARED_OPTIONS.monitorOnly,
  labelTakePrecedence: SHARED_OPTIONS.labelTakePrecedence,
  rollingRestart: option.boolean({
    flag: 'rolling-restart', group: behaviour,
    description: 'Replace containers one at a time. Cannot be combined with --monitor-only.',
  }),
  stopTimeoutMs: option.duration({
    flag: 'stop-timeout', short: 't', watchtowerEnv: 'TIMEOUT', default: 30_000, group: behaviour,
    description: "Grace period before a stopping container is killed (a container's own StopTimeout wins).",
  }),
  enableLifecycleHooks: option.boolean({
    flag: 'enable-lifecycle-hooks', watchtowerEnv: 'LIFECYCLE_HOOKS', group: behaviour,
    description: 'Run the lifecycle hook commands given in container labels.',
  }),
  lifecycleUid: option.integer({
    flag: 'lifecycle-uid', valueName: '<uid>', default: 0, max: 2147483647, group: behaviour,
    description: "User id lifecycle hooks run as (0: the container's default user).",
  }),
  lifecycleGid: option.integer({
    flag: 'lifecycle-gid', valueName: '<gid>', default: 0, max: 2147483647, group: behaviour,
    description: 'Group id lifecycle hooks run as.',
  }),
  // 10s catches the common failure (a new container that crashes on start or never becomes healthy) while
  // keeping a run over many containers short; 0 removes the old container as soon as the new one has
  // started, as Watchtower did.
  gracePeriodMs: option.duration({
    flag: 'update-grace-period', default: 10_000, group: behaviour,
    description:
      'How long a new container must stay running (and healthy, when it has a health check) before the old one is removed; otherwise it is rolled back. 0: no wait.',
  }),
  // Off by default: Tidewatch writes to a user's files only when asked (docs/compose.md#--compose-rewrite).
  // The Watchtower fork waits 5 minutes for health on rolling restarts; it also covers Docker's default
  // timing, whose verdict can take 3 min 30 s (docs/replacement.md#proof).
  healthTimeoutMs: option.duration({
    flag: 'update-health-timeout', default: 300_000, zeroMeans: 300_000, positive: true, group: behaviour,
    description:
      "The longest a new container's health check is waited for: the proof waits as long as the check's own timing needs (start period, interval, timeout, retries), up to this.",
  }),
  composeRewrite: option.boolean({
    flag: 'compose-rewrite', group: behaviour,
    description:
      "After a tag update of a Compose-managed container, rewrite that service's image: in its Compose file (when Tidewatch can read it and it still names the old reference), so Compose keeps the new tag when it recreates the container (docs/compose.md).",
  }),

  inspectConcurrency: option.integer({
    flag: 'docker-inspect-concurrency', min: 1, default: 10, hidden: true, group: connection,
    description: 'Containers inspected at once during discovery.',
  }),
  selfContainerId: option.string({
    flag: 'self-container-id', env: null, hidden: true, group: behaviour,
    description: "Tidewatch's own container id, when the detection (mountinfo, cgroup, hostname) cannot tell.",
  }),
  // The fork's two Podman switches (docs/podman.md#cpu-limits-and-memory-swappiness).
  cpuCopyMode: option.enum({
    flag: 'cpu-copy-mode', values: ['auto', 'full', 'none'], default: 'auto', valueName: '<auto|full|none>', group: behaviour,
    description: 'CPU limits of a replacement: auto (all, minus the NanoCpus Podman refuses beside a quota), full (all, as inspected), none (no CPU limits).',
  }),
  disableMemorySwappiness: option.boolean({
    flag: 'disable-memory-swappiness', group: behaviour,
    description: 'Create replacements without a memory swappiness (Podman with crun and cgroup v2 may refuse one).',
  }),
  selfUpdate: option.boolean({
    flag: 'self-update', default: true, env: null, hidden: true, group: behaviour,
    description: "Replace Tidewatch's own container when its image is stale (never in --run-once mode).",
  }),
  // The Watchtower fork's ephemeral self-update (docs/image.md#ephemeral-self-update).
  ephemeralSelfUpdate: option.boolean({
    flag: 'ephemeral-self-update', group: behaviour,
    description: "Replace Tidewatch's own container through a short-lived helper container on the new image (works with published ports).",
  }),
  // The helper's mode, as in the fork: internal, only the helper container is started with it.
  selfUpdateOrchestrator: option.boolean({
    flag: 'self-update-orchestrator', env: null, hidden: true, group: behaviour,
    description: 'Internal: run as the ephemeral self-update helper (started by Tidewatch, never by hand).',
  }),
};

/** What an embedder passes: any subset; the declarations' defaults fill the rest. */
export type DockerPluginOptions = Partial<DockerOptionValues>;
export type DockerOptionValues = OptionValues<typeof dockerOptions>;

/** Looks up pull credentials for an image reference (the PULL_CREDENTIALS service). */
export type AuthFor = (imageRef: string) => Promise<RegistryAuth | undefined>;
export type { RegistryAuth };

/** The options as the plugin's parts use them: the declared values plus what the core decides. */
export interface ResolvedDockerOptions extends Omit<DockerOptionValues, 'selfContainerId' | 'apiVersion' | 'certPath'> {
  readonly selfContainerId: string | undefined;
  readonly apiVersion: string | undefined;
  readonly certPath: string | undefined;
  /** Pull credentials; without it pulls are anonymous. */
  readonly authFor: AuthFor | undefined;
  /** The key and known_hosts file of ssh:// engines, read at start when one is configured (docs/ssh-hosts.md). */
  readonly ssh?: SshSettings;
  /** Volume snapshots (docs/snapshots.md), when the state plugin is loaded. */
  readonly snapshots?: () => Snapshots | undefined;
}
