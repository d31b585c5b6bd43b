// The Docker runtime's connection options (Watchtower's --host, --tlsverify, --cert-path, --api-version, with
// Docker's own variables read last, and the ssh:// key files), in a module of their own that loads only the
// core's declaration surface and the host parser: the agent (`tidewatch agent`) reads them without loading
// the runtime's other declarations or the core's engine (docs/fleet.md#footprint). plugins/docker/options.ts
// spreads them first into the plugin's options, so they are the same declarations.
import { option } from '../../core/declarations.js';
import { DEFAULT_DOCKER_HOST, formatHostEntry, parseHostList } from './engine/hosts.js';

const connection = 'Docker connection';

export const dockerConnectionOptions = {
  // Several engines (docs/hosts.md): repeat the flag, or list them; DOCKER_HOST names one. An embedder may
  // pass one host as a string. The parser checks each entry and keeps it as written (cert-path absolute).
  host: option.custom<string | readonly string[]>({
    flag: 'host', short: 'H', env: 'HOSTS', watchtowerEnv: null, externalEnv: 'DOCKER_HOST', valueName: '<url>',
    kind: 'list', default: [DEFAULT_DOCKER_HOST], group: connection,
    parse: (raw, ctx) => parseHostList(raw, ctx).map(formatHostEntry),
    schema: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
    description:
      'Docker daemon socket (unix://, tcp://, npipe://, ssh://); repeat the flag (or list them) to watch several engines. ' +
      'A tcp:// entry may carry its own TLS: tcp://host:2376?tlsverify=1&cert-path=<dir>; ssh://[user@]host[:port][?socket=<path>] reaches an engine over SSH.',
  }),
  tlsVerify: option.boolean({
    flag: 'tlsverify', short: 'v', watchtowerEnv: null, externalEnv: 'DOCKER_TLS_VERIFY', group: connection,
    description: 'Use TLS and verify the daemon (certificates from --cert-path); the default of every --host entry.',
  }),
  apiVersion: option.string({
    flag: 'api-version', short: 'a', watchtowerEnv: null, externalEnv: 'DOCKER_API_VERSION', valueName: '<version>',
    pattern: '^(v?[0-9]+\\.[0-9]+)?$', group: connection, description: 'Docker API version to use (empty: negotiate).',
  }),
  certPath: option.path({
    flag: 'cert-path', watchtowerEnv: null, externalEnv: 'DOCKER_CERT_PATH', valueName: '<dir>', group: connection,
    description: 'Directory holding ca.pem, cert.pem and key.pem for --tlsverify; the default of every --host entry.',
  }),
  // ssh:// engines (docs/ssh-hosts.md): read at start only when one is configured.
  sshKey: option.path({
    flag: 'ssh-key', watchtowerEnv: null, group: connection,
    description: 'Private key for ssh:// hosts (OpenSSH format, no passphrase); default ~/.ssh/id_ed25519, then ~/.ssh/id_rsa.',
  }),
  sshKnownHosts: option.path({
    flag: 'ssh-known-hosts', watchtowerEnv: null, group: connection,
    description: "OpenSSH known_hosts file that must list every ssh:// host's key (never trusted on first use); default ~/.ssh/known_hosts.",
  }),
};
