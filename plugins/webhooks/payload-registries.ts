// Registry payloads (docs/webhooks.md#payloads): CNCF Distribution's notification envelope (also GitLab's
// and Harbor's built-in registries), Docker Hub, Harbor's own webhook, Quay, and the generic shape. Pulls,
// deletes, blob events and artifact tags give no hint: they are counted as events and ignored, except a cosign
// signature tag, whose hint names the digest it signs.
import { isArtifactTag } from '../../contracts/shared/tag-version.js';
import { MAX_EVENTS, imageHint, obj, signedDigestOf, str, type Hint, type ParsedPayload } from './hints.js';

/** Manifest and index media types; a layer's or a config's is a blob event. */
function isManifestType(mediaType: string | undefined): boolean {
  if (mediaType === undefined) return true; // older senders leave it out for manifests
  const t = mediaType.toLowerCase();
  if (/layer|config|rootfs|octet-stream|container\.image/.test(t)) return false;
  return /manifest|index/.test(t);
}

function keep(hint: Hint | undefined, hints: Hint[]): void {
  if (!hint) return;
  if (hint.kind === 'image' && hint.tag !== undefined && isArtifactTag(hint.tag)) {
    // Not an image to run, but a signature's arrival re-checks the image it signs (docs/webhooks.md#signatures-arriving).
    const signs = signedDigestOf(hint.tag);
    if (signs) hints.push({ kind: 'image', repository: hint.repository, signs, ...(hint.eventId ? { eventId: hint.eventId } : {}) });
    return;
  }
  hints.push(hint);
}

/** `{"events":[{id, action, target:{mediaType, digest, repository, tag, url}, request:{host}}]}`. */
export function parseDistribution(body: unknown): ParsedPayload {
  const events = Array.isArray(obj(body)?.events) ? (obj(body)?.events as unknown[]) : [];
  const hints: Hint[] = [];
  for (const raw of events.slice(0, MAX_EVENTS)) {
    const event = obj(raw);
    const target = obj(event?.target);
    if (!event || !target || str(event.action) !== 'push') continue;
    if (!isManifestType(str(target.mediaType))) continue;
    const repository = str(target.repository);
    // The registry as the pusher addressed it: the event's URL, else the request's Host.
    let host: string | undefined;
    try {
      host = new URL(str(target.url) ?? '').host || undefined;
    } catch {
      host = undefined;
    }
    host ??= str(obj(event.request)?.host, 255);
    if (!repository || !host) continue;
    keep(imageHint(`${host}/${repository}`, target.tag, target.digest, event.id), hints);
  }
  return { events: events.length, hints };
}

/** `{push_data:{tag}, repository:{repo_name}}`: Docker Hub sends one push per request. */
export function parseDockerHub(body: unknown): ParsedPayload {
  const root = obj(body);
  const repo = str(obj(root?.repository)?.repo_name);
  const tag = str(obj(root?.push_data)?.tag);
  if (!root || !repo) return { events: root ? 1 : 0, hints: [] };
  const hints: Hint[] = [];
  keep(imageHint(`docker.io/${repo}`, tag, undefined), hints);
  return { events: 1, hints };
}

/** `{type:"PUSH_ARTIFACT", event_data:{repository:{repo_full_name}, resources:[{tag, digest, resource_url}]}}`. */
export function parseHarbor(body: unknown): ParsedPayload {
  const root = obj(body);
  const data = obj(root?.event_data);
  const resources = Array.isArray(data?.resources) ? (data?.resources as unknown[]) : [];
  const events = Math.max(1, resources.length);
  if (!root || str(root.type) !== 'PUSH_ARTIFACT') return { events: root ? events : 0, hints: [] };
  const fullName = str(obj(data?.repository)?.repo_full_name);
  const hints: Hint[] = [];
  for (const raw of resources.slice(0, MAX_EVENTS)) {
    const resource = obj(raw);
    // `resource_url` is `harbor.example.com/library/app:tag`: its host is the registry's.
    const url = str(resource?.resource_url);
    const host = url?.split('/')[0];
    if (!resource || !fullName || !host) continue;
    keep(imageHint(`${host}/${fullName}`, resource.tag, resource.digest), hints);
  }
  return { events, hints };
}

/** `{repository, docker_url:"quay.io/ns/repo", updated_tags:["latest"]}`: Quay's repository push. */
export function parseQuay(body: unknown): ParsedPayload {
  const root = obj(body);
  const url = str(root?.docker_url);
  const tags = Array.isArray(root?.updated_tags) ? (root?.updated_tags as unknown[]).slice(0, MAX_EVENTS) : [];
  if (!root || !url) return { events: root ? 1 : 0, hints: [] };
  const hints: Hint[] = [];
  for (const tag of tags) keep(imageHint(url, tag, undefined), hints);
  if (tags.length === 0) keep(imageHint(url, undefined, undefined), hints);
  return { events: Math.max(1, tags.length), hints };
}

/** `{"repository":"registry.example.com/team/app","tag"?,"digest"?}`: one push of anything that can POST. */
export function parseGeneric(body: unknown): ParsedPayload {
  const root = obj(body);
  const repository = str(root?.repository);
  // Anything that can POST sends this shape: a body without its one required field is the sender's mistake,
  // said to it, never a silent 202 (docs/webhooks.md#payloads).
  if (!root) return { events: 0, hints: [], invalid: 'a generic payload is a JSON object' };
  if (!repository) return { events: 0, hints: [], invalid: 'a generic payload needs "repository" (a string)' };
  const hints: Hint[] = [];
  keep(imageHint(repository, root.tag, root.digest), hints);
  return { events: 1, hints };
}
