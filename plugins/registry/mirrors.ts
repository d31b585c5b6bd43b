// Docker Hub references checked through the engine's registry mirrors (its daemon's `registry-mirrors`, read by
// the runtime and handed over as the REGISTRY_MIRRORS service), as the engine pulls them: each mirror in the
// engine's order, Docker Hub after every mirror failed (docs/registry-mirrors.md).
//
// A mirror is trusted to say that something newer exists (the runtime then pulls that digest, which a mirror
// serves or the engine fetches from Hub), never alone to say "up to date": a pull-through cache that cannot reach
// Hub, or has not refreshed the tag yet, keeps serving the digest the container already runs. So an answer equal
// to the running digest is confirmed with Docker Hub, and when Hub cannot be asked the check fails with
// TW_ERR_REGISTRY_MIRROR_UNCONFIRMED instead of reporting "up to date".
import { createError, errorMessage, TidewatchError, type ImageReference, type Target } from '../../core/index.js';
import type { RegistryMirrors } from '../../contracts/index.js';
import { RegistryError } from './client.js';
import { isDockerHub, type RegistryEndpoint } from './endpoint.js';

export const mirrorUnconfirmed = createError(
  'TW_ERR_REGISTRY_MIRROR_UNCONFIRMED',
  (mirror: string, reference: string, why: string) =>
    `registry mirror ${mirror} serves the running digest of ${reference}, but Docker Hub could not confirm it (${why}): ` +
    'a mirror that has not refreshed answers the same, so it is not reported as up to date',
  502,
);

/** A mirror URL (an origin, as the runtime lists them) as the registry client speaks to it. */
export function mirrorEndpoint(mirror: string): RegistryEndpoint {
  const url = new URL(mirror);
  return { registry: url.host, baseUrl: url.origin };
}

export interface MirrorQuestions {
  /** The image as the user wrote it, for messages. */
  readonly reference: string;
  /** Mirror origins, in the engine's order. */
  readonly mirrors: readonly string[];
  /** The digest a mirror serves for the tag (throws when it cannot answer, a 404 included). */
  askMirror(mirror: string): Promise<string>;
  /** The digest Docker Hub serves for the tag. */
  askHub(): Promise<string>;
  /** Whether the running image is known by this digest. */
  isRunning(digest: string): boolean;
}

export interface MirroredDigest {
  readonly digest: string;
  /** The mirror whose answer it is; absent when Docker Hub answered. */
  readonly mirror?: string;
}

/** The tag's newest digest: a mirror's when it differs from the running one, else Docker Hub's. */
export async function digestThroughMirrors(q: MirrorQuestions): Promise<MirroredDigest> {
  const failures: string[] = [];
  for (const mirror of q.mirrors) {
    let digest: string;
    try {
      digest = await q.askMirror(mirror);
    } catch (err) {
      // Not there, down or refusing: the engine would pull from the next one, and so the check asks it.
      failures.push(`${mirror}: ${errorMessage(err)}`);
      continue;
    }
    if (!q.isRunning(digest)) return { digest, mirror };
    // The running digest: true of a fresh mirror and of one that has not refreshed alike. Docker Hub decides.
    try {
      return { digest: await q.askHub() };
    } catch (err) {
      throw mirrorUnconfirmed(mirror, q.reference, errorMessage(err));
    }
  }
  try {
    return { digest: await q.askHub() };
  } catch (err) {
    if (failures.length === 0) throw err;
    const status = err instanceof RegistryError ? err.status : err instanceof TidewatchError ? err.statusCode : undefined;
    throw new RegistryError(`every registry mirror failed (${failures.join('; ')}), and Docker Hub: ${errorMessage(err)}`, status);
  }
}

/**
 * Where a Docker Hub image's content (manifests by digest, blobs) is read: the target engine's mirrors in order,
 * then Hub (`undefined`); any other registry alone. Content is addressed by digest, so a mirror's copy is the image.
 */
export async function readEndpoints(
  ref: ImageReference,
  target: Target,
  mirrors: RegistryMirrors | undefined,
): Promise<readonly (RegistryEndpoint | undefined)[]> {
  const listed = mirrors && isDockerHub(ref.registry) ? await mirrors.mirrorsFor(target.host) : [];
  return [...listed.map(mirrorEndpoint), undefined];
}
