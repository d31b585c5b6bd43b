// Watchtower options Tidewatch accepts but does not act on. A Watchtower user's environment or command
// line must not make Tidewatch exit 2, so each one is parsed (with Watchtower's value rules, so a value
// Watchtower refused is still refused), shown in `/v1/config`, and named in one startup warning. A plugin
// that implements one declares it itself, and it leaves this list.
import { option } from '../../core/index.js';

const group = 'Watchtower compatibility (accepted, not implemented)';
const str = (flag: string, description: string, extra: { default?: string; watchtowerEnv?: string } = {}) =>
  option.string({ flag, group, description, ...extra });
const secret = (flag: string, description: string, extra: { watchtowerEnv?: string } = {}) =>
  option.string({ flag, group, description, secret: true, valueName: '<value|file>', ...extra });
const bool = (flag: string, description: string, extra: { env?: null; hidden?: boolean } = {}) =>
  option.boolean({ flag, group, description, ...extra });

export const COMPAT_OPTIONS = {
  selfUpdateOrchestrator: bool('self-update-orchestrator', "Watchtower's internal self-update helper.", { env: null, hidden: true }),
  ephemeralSelfUpdate: bool('ephemeral-self-update', 'Self-update through a short-lived helper container.'),
  warnOnHeadFailure: option.enum({
    flag: 'warn-on-head-failure', values: ['always', 'never', 'auto'], default: 'auto', aliases: { '': 'auto' }, group,
    valueName: '<always|never|auto>', description: 'When a failed digest check is logged as a warning.',
  }),
  registryTlsMinVersion: option.enum({
    flag: 'registry-tls-min-version', values: ['TLS1.0', 'TLS1.1', 'TLS1.2', 'TLS1.3'], default: 'TLS1.2', group,
    valueName: '<version>', description: 'Minimum TLS version towards registries.',
  }),
  disableMemorySwappiness: bool('disable-memory-swappiness', 'Podman: drop MemorySwappiness when recreating.'),
  cpuCopyMode: option.enum({
    flag: 'cpu-copy-mode', values: ['auto', 'full', 'none'], default: 'auto', valueName: '<auto|full|none>', group,
    description: 'Which CPU limits are copied when recreating.',
  }),
};

/** Their flags, for the one startup warning naming those that were set. */
export const IGNORED_WATCHTOWER_OPTIONS: readonly string[] = Object.freeze(Object.values(COMPAT_OPTIONS).map((o) => o.flag));
