// Reading a `git.repo` label: which path resolves its head (GitHub's REST API for github.com, smart
// HTTP for any other host), what the report shows (never a password), and where people read changes.
import { TidewatchError } from '../../core/index.js';

export interface GitHubRepo {
  readonly kind: 'github';
  readonly owner: string;
  readonly name: string;
  /** The label without credentials, as reported in `git.repo`. */
  readonly display: string;
  /** `https://github.com/<owner>/<name>` */
  readonly page: string;
  /** Memo and cache key: GitHub names are case-insensitive. */
  readonly key: string;
}

export interface SmartHttpRepo {
  readonly kind: 'smart-http';
  /** The repository URL without credentials, fragment or trailing slash. */
  readonly url: string;
  readonly display: string;
  /** The repository URL without `.git`. */
  readonly page: string;
  readonly key: string;
  /** Credentials written into the URL (`https://user:pass@host/repo.git`). */
  readonly credentials?: { readonly username: string; readonly password: string };
}

export type RepoLocation = GitHubRepo | SmartHttpRepo;

export class RepoUrlError extends TidewatchError {
  constructor(message: string) {
    super('TW_ERR_GIT_REPO_URL', message, 400);
    this.name = 'RepoUrlError';
  }
}

const GITHUB_HOSTS = new Set(['github.com', 'www.github.com']);
// `git@github.com:owner/repo.git`: scp-like syntax, no scheme, a colon before the first slash.
const SCP_LIKE = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/;

function stripGitSuffix(path: string): string {
  return path.replace(/\/+$/, '').replace(/\.git$/, '');
}

function github(path: string, display: string): GitHubRepo {
  const [owner, rawName] = path.replace(/^\/+/, '').split('/');
  const name = rawName === undefined ? '' : stripGitSuffix(rawName);
  if (!owner || !name) throw new RepoUrlError(`not a GitHub repository URL: ${display}`);
  return {
    kind: 'github',
    owner,
    name,
    display,
    page: `https://github.com/${owner}/${name}`,
    key: `github:${owner.toLowerCase()}/${name.toLowerCase()}`,
  };
}

function withoutCredentials(url: URL): URL {
  const clean = new URL(url.href);
  clean.username = '';
  clean.password = '';
  clean.hash = '';
  return clean;
}

export function parseRepoUrl(label: string): RepoLocation {
  const value = label.trim();
  if (!value) throw new RepoUrlError('the git.repo label is empty');

  const scp = value.includes('://') ? null : SCP_LIKE.exec(value);
  if (scp && (scp[1] as string).includes('.')) {
    if (GITHUB_HOSTS.has((scp[1] as string).toLowerCase())) return github(scp[2] as string, value);
    throw new RepoUrlError(`SSH remotes are not supported for hosts other than github.com (use an http(s) URL): ${value}`);
  }

  let url: URL;
  try {
    url = new URL(value.includes('://') ? value : `https://${value}`);
  } catch {
    throw new RepoUrlError(`not a repository URL: ${value}`);
  }
  const clean = withoutCredentials(url);
  const display = value.includes('://') ? clean.href.replace(/\/+$/, '') : value;
  if (GITHUB_HOSTS.has(url.hostname.toLowerCase())) return github(url.pathname, display);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RepoUrlError(`only http(s) URLs are supported for hosts other than github.com: ${display}`);
  }
  const base = clean.href.replace(/\/+$/, '');
  const credentials =
    url.username || url.password
      ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : undefined;
  return {
    kind: 'smart-http',
    url: base,
    display: base,
    page: base.replace(/\.git$/, ''),
    // Different credentials in the URL may see different refs: keep their answers apart.
    key: credentials ? `smart-http:${credentials.username}@${base}` : `smart-http:${base}`,
    ...(credentials ? { credentials } : {}),
  };
}
