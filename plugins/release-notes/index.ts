// The release-notes plugin (`--release-notes`, docs/versions.md#release-notes): for a stale container whose
// source repository is on GitHub, the releases after the running version up to the new one, asked through
// the Git source's GitHub client (the GITHUB_API service: its token, API root, rate limits and conditional
// requests). Off by default: no request leaves for a code host unless asked.
import { STAGES, definePlugin, option, type OptionValues } from '../../core/index.js';
import { GITHUB_API } from '../../contracts/index.js';

export const PLUGIN_NAME = 'release-notes';

const releaseNotesOptions = {
  enabled: option.boolean({
    flag: 'release-notes', default: false, group: 'Registry and Git',
    description: "Read what changed for each update from its source repository's GitHub releases (uses --git-token and --git-github-api-url).",
  }),
};
export type ReleaseNotesPluginOptions = Partial<OptionValues<typeof releaseNotesOptions>>;

export const releaseNotesPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: releaseNotesOptions,
  // Off unless asked: not applied, nor named among the started plugins.
  enabled: (options) => options.enabled,
  async apply(core, options) {
    const { ReleaseNotesReader } = await import('./reader.js');
    const reader = new ReleaseNotesReader(() => core.services.get(GITHUB_API));
    // After the registry's review tap (built-in order): the latest version is known by then.
    // After the stage that names the candidate's version (the registry's), wherever this plugin is listed.
    core.hooks.review.tapPromise({ name: PLUGIN_NAME, stage: STAGES.review.explain }, (staleness, target, ctx) => reader.review(staleness, target, ctx));
  },
});

export default releaseNotesPlugin;
