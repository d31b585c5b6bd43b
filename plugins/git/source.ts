// The Git staleness source (docs/interface.md §8–9): claims exactly the targets with a `git.repo` label
// (the watch split), resolves the head of the ref they follow on the remote, and compares it with the
// commit the running image was built from. It never clones and never builds.
import { FINDINGS, errorMessage, isGitWatched, readLabel, withFinding } from '../../core/index.js';
import { OCI_REVISION, sameCommit } from '../../contracts/shared/revision.js';
import { labelOrGlobal } from '../../contracts/shared/labels.js';
import type { GitStaleness, Logger, RunContext, Staleness, Target } from '../../core/index.js';
import { CredentialHosts, parseCredentialHost } from './credential-hosts.js';
import { GitHubClient } from './github.js';
import { selectRef } from './refs.js';
import { parseRepoUrl, type GitHubRepo, type RepoLocation, type SmartHttpRepo } from './repo-url.js';
import { SmartHttpClient } from './smart-http.js';

/** What the Git source found, as the stale answer's finding (docs/plugins.md#findings): the check record's `git_*`. */
function gitFinding(git: GitStaleness): Pick<Staleness, 'findings'> {
  return withFinding({}, FINDINGS.git, git);
}

export interface GitSourceSettings {
  readonly token?: string;
  readonly username?: string;
  readonly password?: string;
  readonly noPull: boolean;
  readonly labelTakePrecedence: boolean;
  readonly githubApiUrl: string;
  /** `--git-credential-hosts` (docs/interface.md#git-credentials); default `github.com`. */
  readonly credentialHosts?: readonly string[];
  readonly requestTimeoutMs: number;
}

interface Head {
  /** The ref as reported (label as written, or the default branch's name). */
  readonly ref: string;
  readonly commit: string;
}

/** Watchtower's rule: label OR global flag; with label-take-precedence a set label decides alone. */
export function isNoPull(target: Target, globalNoPull: boolean, labelTakePrecedence: boolean): boolean {
  return labelOrGlobal(target.labels, 'no-pull', globalNoPull, labelTakePrecedence);
}

/** The commit the running image was built from: the `git.commit` label, else the OCI revision. */
export function currentCommitOf(target: Target): string | undefined {
  const label = readLabel(target.labels, 'git.commit')?.trim();
  const commit = label || target.imageLabels[OCI_REVISION]?.trim();
  return commit ? commit.toLowerCase() : undefined;
}

/** Where to read what changed: GitHub's compare view, or the repository page elsewhere. */
export function changelogFor(repo: RepoLocation, head: string, current: string | undefined): string {
  if (repo.kind !== 'github') return repo.page;
  if (current && !sameCommit(head, current)) return `${repo.page}/compare/${current}...${head}`;
  return `${repo.page}/commit/${head}`;
}

export class GitSource {
  readonly #settings: GitSourceSettings;
  readonly #github: GitHubClient;
  readonly #smartHttp: SmartHttpClient;

  constructor(settings: GitSourceSettings, logger: Logger) {
    this.#settings = settings;
    this.#github = new GitHubClient({
      baseUrl: settings.githubApiUrl,
      timeoutMs: settings.requestTimeoutMs,
      logger: logger.child({ plugin: 'git' }),
      ...(settings.token ? { token: settings.token } : {}),
    });
    this.#smartHttp = new SmartHttpClient({
      timeoutMs: settings.requestTimeoutMs,
      credentialHosts: new CredentialHosts((settings.credentialHosts ?? ['github.com']).map(parseCredentialHost)),
      ...(settings.username !== undefined ? { username: settings.username } : {}),
      ...(settings.password !== undefined ? { password: settings.password } : {}),
      ...(settings.token ? { token: settings.token } : {}),
    });
  }

  /** The GitHub client, shared with other plugins through GITHUB_API (docs/versions.md#release-notes). */
  get github(): GitHubClient {
    return this.#github;
  }

  /** The checkStaleness tap: undefined for targets that are not Git-watched. Never throws. */
  async check(target: Target, ctx: RunContext): Promise<Staleness | undefined> {
    if (!isGitWatched(target.labels)) return undefined;
    const repoLabel = readLabel(target.labels, 'git.repo') as string;
    const refLabel = readLabel(target.labels, 'git.ref')?.trim() || undefined;
    const currentCommit = currentCommitOf(target);
    const log = ctx.logger.child({ container: target.name });
    const git = (repo: string, ref: string | undefined): GitStaleness => ({
      repo,
      ref: ref ?? 'HEAD',
      ...(currentCommit ? { currentCommit } : {}),
    });

    let repo: RepoLocation;
    try {
      repo = parseRepoUrl(repoLabel);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'git.repo label is not usable');
      return { source: 'git', stale: false, error: errorMessage(err), ...gitFinding(git(repoLabel.trim(), refLabel)) };
    }

    // Spec 4.2 rule 4: a Git-watched no-pull container is not checked and its remote not contacted.
    if (isNoPull(target, this.#settings.noPull, this.#settings.labelTakePrecedence)) {
      log.debug({ repo: repo.display }, 'no-pull: Git remote not contacted');
      return { source: 'git', stale: false, unchecked: true, ...gitFinding(git(repo.display, refLabel)) };
    }

    let head: Head;
    try {
      head = repo.kind === 'github' ? await this.#githubHead(repo, refLabel, ctx) : await this.#smartHttpHead(repo, refLabel, ctx);
    } catch (err) {
      const error = `git ${repo.display}: ${errorMessage(err)}`;
      log.warn({ repo: repo.display, ref: refLabel, err: errorMessage(err) }, 'Git head resolution failed');
      // Never "up to date" on failure: the error travels with the target.
      return { source: 'git', stale: false, error, ...gitFinding(git(repo.display, refLabel)) };
    }

    const stale = !sameCommit(head.commit, currentCommit);
    if (!currentCommit) {
      log.warn(
        { repo: repo.display, ref: head.ref, head: head.commit },
        `current commit unknown (no git.commit label, no ${OCI_REVISION} image label): reported stale`,
      );
    } else {
      log.debug({ repo: repo.display, ref: head.ref, head: head.commit, current: currentCommit, stale }, 'Git ref checked');
    }
    return {
      source: 'git',
      stale,
      ...gitFinding({ ...git(repo.display, head.ref), commit: head.commit, changelog: changelogFor(repo, head.commit, currentCommit) }),
      requiredRevision: head.commit,
    };
  }

  /** One request per distinct (repository, ref) per run: the run's memo shares the answers. */
  async #githubHead(repo: GitHubRepo, refLabel: string | undefined, ctx: RunContext): Promise<Head> {
    const ref = refLabel ?? (await ctx.memo(`git:${repo.key}#default-branch`, () => this.#github.defaultBranch(repo, ctx.signal)));
    const commit = await ctx.memo(`git:${repo.key}#ref:${ref}`, () => this.#github.head(repo, ref, ctx.signal));
    return { ref, commit };
  }

  /** One advertisement lists every ref: one request per repository per run, whatever the refs. */
  async #smartHttpHead(repo: SmartHttpRepo, refLabel: string | undefined, ctx: RunContext): Promise<Head> {
    const adv = await ctx.memo(`git:${repo.key}`, () => this.#smartHttp.advertisement(repo, ctx.signal));
    const selected = selectRef(adv, refLabel);
    return { ref: selected.ref, commit: selected.commit };
  }
}
