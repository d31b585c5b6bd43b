// The `git` plugin: the staleness source of the `git` watch path (docs/interface.md §8–9), the containers
// with a `git.repo` label. It answers only for them; every other target belongs to another path.
import { GIT_PATH, SHARED_OPTIONS, STAGES, definePlugin, invalidOptions, option, type OptionValues } from '../../core/index.js';
import { GITHUB_API } from './contracts.js';
import { isCredentialSafeTransport, parseCredentialHost } from './credential-hosts.js';

export const PLUGIN_NAME = 'git';
const group = 'Registry and Git';

export const gitOptions = {
  token: option.string({
    flag: 'git-token', valueName: '<token|file>', secret: true, group,
    description: 'Token for Git hosts (GitHub API, smart HTTP); a path to a file holding it works too.',
  }),
  username: option.string({
    flag: 'git-username', group, description: 'Basic-auth user for Git hosts other than github.com.',
  }),
  password: option.string({
    flag: 'git-password', valueName: '<password|file>', secret: true, group,
    description: 'Basic-auth password for Git hosts other than github.com (default: the git token).',
  }),
  credentialHosts: option.list({
    flag: 'git-credential-hosts', watchtowerEnv: null, default: ['github.com'], split: 'comma', valueName: '<host[:port],…>', group,
    item: (value) => {
      parseCredentialHost(value);
      return value.trim().toLowerCase();
    },
    description:
      'Git hosts that may receive --git-token/--git-password over smart HTTP (https, or http to a loopback address); a repository elsewhere is read anonymously.',
  }),
  noPull: SHARED_OPTIONS.noPull,
  labelTakePrecedence: SHARED_OPTIONS.labelTakePrecedence,
  githubApiUrl: option.string({
    flag: 'git-github-api-url', default: 'https://api.github.com', pattern: '^https?://', valueName: '<url>', group,
    description: 'GitHub REST API root (GitHub Enterprise: https://host/api/v3).',
  }),
  requestTimeoutMs: option.duration({
    flag: 'git-request-timeout', default: 30_000, positive: true, group,
    description: 'Time limit of one request to a Git host.',
  }),
};
export type GitPluginOptions = Partial<OptionValues<typeof gitOptions>>;

export const gitPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: gitOptions,
  apply(core, options) {
    const github = new URL(options.githubApiUrl);
    if ((options.token || options.password) && !isCredentialSafeTransport(github)) {
      // The token would cross the network in clear text (docs/interface.md#git-credentials).
      throw invalidOptions('git-github-api-url', `invalid value ${JSON.stringify(github.origin)} for --git-github-api-url: the git token goes only over https (plain http only to a loopback address)`);
    }
    // Octokit and the Git clients load with the first Git-watched target, never for a fleet without
    // one (docs/performance.md#footprint).
    const load = async () => {
      const { GitSource } = await import('./source.js');
      return new GitSource(
        {
          ...(options.token ? { token: options.token } : {}),
          ...(options.username ? { username: options.username } : {}),
          ...(options.password ? { password: options.password } : {}),
          noPull: options.noPull,
          labelTakePrecedence: options.labelTakePrecedence,
          githubApiUrl: options.githubApiUrl,
          credentialHosts: options.credentialHosts,
          requestTimeoutMs: options.requestTimeoutMs,
        },
        core.logger,
      );
    };
    let source: ReturnType<typeof load> | undefined;
    // Release notes ask GitHub through the Git source's own client (docs/versions.md#release-notes); it
    // loads with the first such request, as it does for the first Git-watched target.
    core.services.provide(GITHUB_API, {
      get: async (route, params, extract, signal) => (await (source ??= load())).github.get(route, params, extract, signal),
    });
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: STAGES.checkStaleness.remote }, async (target, ctx) =>
      core.watchPath(target) === GIT_PATH ? (await (source ??= load())).check(target, ctx) : undefined,
    );
  },
});

export default gitPlugin;
