// The `git` plugin: the staleness source for Git-watched containers (decisions.md §8–9). It taps
// checkStaleness early (stage -20), before the no-pull and registry sources, and answers only for
// targets with a `git.repo` label; every other target falls through to them (the watch split).
import type { JsonSchema, TidewatchPlugin } from '../../core/index.js';
import { GitSource } from './source.js';

export const PLUGIN_NAME = 'git';
/** Tapable stage of the checkStaleness tap: ahead of the default stage 0 the other sources use. */
export const GIT_STAGE = -20;

export interface GitPluginOptions {
  /** GitHub token (REST API); also the Basic password for other hosts when no password is set. */
  readonly token?: string;
  /** Basic credentials for hosts other than github.com. */
  readonly username?: string;
  readonly password?: string;
  /** Global no-pull: Git-watched targets are then not checked and their remote not contacted. */
  readonly noPull?: boolean;
  /** A set `no-pull` label decides alone instead of being OR-ed with the global flag. */
  readonly labelTakePrecedence?: boolean;
  /** GitHub REST API root (default `https://api.github.com`). */
  readonly githubApiUrl?: string;
  /** Per-request timeout in milliseconds (default 30000). */
  readonly requestTimeoutMs?: number;
}

export const gitOptionsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    token: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    noPull: { type: 'boolean', default: false },
    labelTakePrecedence: { type: 'boolean', default: false },
    githubApiUrl: { type: 'string', pattern: '^https?://', default: 'https://api.github.com' },
    requestTimeoutMs: { type: 'integer', minimum: 1, default: 30_000 },
  },
};

export const gitPlugin: TidewatchPlugin<GitPluginOptions> = {
  name: PLUGIN_NAME,
  optionsSchema: gitOptionsSchema,
  apply(core, options) {
    const source = new GitSource(
      {
        ...(options.token ? { token: options.token } : {}),
        ...(options.username !== undefined ? { username: options.username } : {}),
        ...(options.password !== undefined ? { password: options.password } : {}),
        noPull: options.noPull ?? false,
        labelTakePrecedence: options.labelTakePrecedence ?? false,
        githubApiUrl: options.githubApiUrl ?? 'https://api.github.com',
        requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      },
      core.logger,
    );
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: GIT_STAGE }, (target, ctx) =>
      source.check(target, ctx),
    );
  },
};

export { OCI_REVISION, isGitWatched, isNoPull, currentCommitOf } from './source.js';
export default gitPlugin;
