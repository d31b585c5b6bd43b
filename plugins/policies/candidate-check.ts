// Approve asks whether the candidate still exists (docs/policies.md#approvals): one manifest read by digest
// through the registry plugin's client (its credentials, connections and bounds), before the entry is marked
// approved. A candidate deleted from the registry since it was asked about can never be applied: approving it
// is a 409 with that reason, not a 202 followed by a failed pull.
import { errorMessage, type ApprovalEntry, type Logger } from '../../core/index.js';
import type { RegistryClientService } from '../../contracts/index.js';
import { retag } from './retag.js';

/** Every manifest shape a candidate digest may name: an index or a single image, OCI or Docker. */
const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
] as const;
/** A manifest or index is a few KiB; the read is bounded all the same (the answer is untrusted). */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * Why the candidate is gone, or undefined when it is there or cannot be told (no registry plugin, the registry
 * unreachable: the approval's run then says what happened).
 */
export async function candidateGone(
  registry: RegistryClientService | undefined,
  entry: ApprovalEntry,
  logger: Logger,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (!registry || !entry.latest_digest.startsWith('sha256:')) return undefined;
  const image = entry.latest_tag ? retag(entry.image, entry.latest_tag) : entry.image;
  try {
    const found = await registry.manifest(image, entry.latest_digest, ACCEPT, { maxBytes: MAX_BYTES, ...(signal ? { signal } : {}) });
    if (found) return undefined;
  } catch (err) {
    logger.warn({ container: entry.container, approval: entry.id, err: errorMessage(err) }, 'could not tell whether the approved candidate is still in the registry');
    return undefined;
  }
  return `the candidate ${entry.latest_tag ?? entry.latest_digest.slice(0, 19)} (${entry.latest_digest.slice(0, 19)}) is gone from the registry`;
}
