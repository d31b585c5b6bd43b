// The registry plugin's options, each declared once (docs/configuration.md#declaring-options).
import { option, type OptionValues } from '../../core/index.js';
import { TAG_POLICIES } from './tags/versions.js';

const group = 'Registry and Git';

export const registryOptions = {
  tlsSkip: option.boolean({
    flag: 'registry-tls-skip', group,
    description: 'Talk to registries over plain HTTP or without verifying TLS certificates.',
  }),
  tlsMinVersion: option.enum({
    flag: 'registry-tls-min-version', values: ['TLS1.0', 'TLS1.1', 'TLS1.2', 'TLS1.3'], default: 'TLS1.2', group,
    valueName: '<TLS1.0|TLS1.1|TLS1.2|TLS1.3>', description: 'Oldest TLS version accepted from a registry.',
  }),
  warnOnHeadFailure: option.enum({
    flag: 'warn-on-head-failure', values: ['always', 'never', 'auto'], default: 'auto', aliases: { '': 'auto' }, group,
    valueName: '<always|never|auto>',
    description: 'When a HEAD that gave no digest (the GET after it costs a pull on Docker Hub) is logged as a warning; auto: Docker Hub only.',
  }),
  concurrency: option.integer({
    flag: 'registry-concurrency', min: 1, default: 20, group,
    description: 'Registry requests in flight at once, all registries together.',
  }),
  dockerConfigDir: option.path({
    flag: 'docker-config', env: null, externalEnv: 'DOCKER_CONFIG', valueName: '<dir>', group,
    description: 'Directory of the config.json holding registry credentials (default: ~/.docker).',
  }),
  repoUser: option.string({
    flag: 'repo-user', env: null, externalEnv: 'REPO_USER', group,
    description: 'User for every registry when config.json has no entry (Watchtower\'s REPO_USER).',
  }),
  repoPass: option.string({
    flag: 'repo-pass', env: null, externalEnv: 'REPO_PASS', valueName: '<password|file>', secret: true, group,
    description: 'Password for --repo-user (Watchtower\'s REPO_PASS).',
  }),
  requestTimeoutMs: option.duration({
    flag: 'registry-request-timeout', default: 30_000, positive: true, group,
    description: 'Time limit of one registry request.',
  }),
  rateLimitMaxWaitMs: option.duration({
    flag: 'registry-rate-limit-max-wait', default: 30_000, group,
    description: 'Longest a request waits for a rate-limiting registry before its containers get an error.',
  }),
  rateLimitRetries: option.integer({
    flag: 'registry-rate-limit-retries', default: 4, group,
    description: 'Retries of one request after a rate limit.',
  }),
  tagPolicy: option.enum({
    flag: 'tag-policy', values: TAG_POLICIES, default: 'digest', watchtowerEnv: null, group,
    description: 'Tag policy of containers without a tidewatch.tag.policy label: digest, patch, minor, major or pin (docs/tags.md).',
  }),
};

export type RegistryOptionValues = OptionValues<typeof registryOptions>;
/** What an embedder passes: any subset; the declarations' defaults fill the rest. */
export type RegistryPluginOptions = Partial<RegistryOptionValues>;
