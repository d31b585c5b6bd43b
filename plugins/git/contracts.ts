// The Git source's contract with other plugins (docs/plugins.md#contracts): the GitHub client it shares. Its
// key and type live here, with the plugin that provides them, and reach other plugins and third parties
// through the contracts entry (contracts/index.ts, `tidewatch/contracts`), never by importing this plugin.
import { defineService, type ServiceKey } from '../../core/index.js';

/**
 * GitHub's REST API as the Git source reaches it (`--git-github-api-url`, `--git-token`): other plugins that
 * ask GitHub (release notes, docs/versions.md#release-notes) share its token, API root, serial queue,
 * rate-limit gate and conditional-request cache instead of options and budgets of their own. Provided by the
 * Git source plugin.
 */
export interface GitHubApi {
  /**
   * One conditional GET of a REST route (`GET /repos/{owner}/{repo}/releases`) with its parameters: what
   * `extract` makes of the JSON answer (keep it bounded: it is cached with the ETag, and a 304 answers from
   * it), or undefined for 404/422. Throws TW_ERR_GIT_RATE_LIMITED, without asking, while GitHub's limit is in
   * force, and TW_ERR_GIT for any other failure.
   */
  get<T>(route: string, params: Readonly<Record<string, string | number>>, extract: (data: unknown) => T, signal: AbortSignal): Promise<T | undefined>;
}
export const GITHUB_API: ServiceKey<GitHubApi> = defineService<GitHubApi>('github-api');
