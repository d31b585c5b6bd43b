// GitHub's webhooks (docs/webhooks.md#github-ghcrio-packages-and-pushes-for-git-watched-containers): package events for ghcr.io (`registry_package`, `package`)
// and `push` events for Git-watched containers. The event type comes from `X-GitHub-Event`; `ping` and any
// other type are accepted and ignored (GitHub marks a non-2xx delivery failed).
import { isArtifactTag } from '../../contracts/shared/tag-version.js';
import { imageHint, normaliseGitRepo, obj, str, type Hint, type ParsedPayload } from './hints.js';

function packageHints(root: Record<string, unknown>): ParsedPayload {
  const pkg = obj(root.registry_package) ?? obj(root.package);
  const action = str(root.action);
  if (!pkg || (action !== 'published' && action !== 'updated')) return { events: 1, hints: [] };
  const type = str(pkg.package_type)?.toLowerCase();
  if (type !== 'container' && type !== 'docker') return { events: 1, hints: [] };
  const version = obj(pkg.package_version);
  const tag = obj(obj(version?.container_metadata)?.tag);
  // `package_url` is `ghcr.io/owner/name:tag`; else the owner and name on ghcr.io.
  const url = str(version?.package_url);
  const namespace = str(pkg.namespace) ?? str(obj(pkg.owner)?.login);
  const name = str(pkg.name);
  const reference = url ?? (namespace && name ? `ghcr.io/${namespace}/${name}` : undefined);
  if (!reference) return { events: 1, hints: [] };
  const hint = imageHint(reference.toLowerCase(), tag?.name, tag?.digest ?? version?.version);
  if (!hint || (hint.tag !== undefined && isArtifactTag(hint.tag))) return { events: 1, hints: [] };
  return { events: 1, hints: [hint] };
}

function pushHints(root: Record<string, unknown>): ParsedPayload {
  const repository = obj(root.repository);
  const ref = str(root.ref, 255);
  if (!repository || !ref || root.deleted === true) return { events: 1, hints: [] };
  const defaultBranch = str(repository.default_branch, 255);
  const commit = str(root.after, 64);
  const hints: Hint[] = [];
  const seen = new Set<string>();
  // A container's `git.repo` may name the clone URL or the web page: both are matched.
  for (const url of [str(repository.clone_url), str(repository.html_url), str(repository.ssh_url)]) {
    const repo = url ? normaliseGitRepo(url) : undefined;
    if (!repo || seen.has(repo)) continue;
    seen.add(repo);
    hints.push({
      kind: 'git',
      repo,
      ref,
      ...(defaultBranch ? { defaultRef: `refs/heads/${defaultBranch}` } : {}),
      ...(commit && /^[0-9a-f]{40}$/.test(commit) ? { commit } : {}),
    });
  }
  return { events: 1, hints };
}

export function parseGitHub(event: string | undefined, body: unknown): ParsedPayload {
  const root = obj(body);
  if (!root) return { events: 0, hints: [] };
  switch (event) {
    case 'registry_package':
    case 'package':
      return packageHints(root);
    case 'push':
      return pushHints(root);
    default:
      return { events: 1, hints: [] };
  }
}

