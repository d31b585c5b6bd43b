// The engine's registry mirrors (its daemon's `registry-mirrors`), which the engine pulls Docker Hub images
// through: the registry source asks them first for Hub references (docs/registry-mirrors.md). They come from
// `GET /info` (RegistryConfig.Mirrors), read through the runtime's one `/info` read, and are refreshed now and
// then: `dockerd` reloads its mirrors on SIGHUP and a restarted engine may have others.
import { errorMessage, type Logger } from '../../../core/index.js';

/** The part of `GET /info` that lists the mirrors (Podman's compatible API leaves it empty). */
export interface MirrorsInfo {
  readonly RegistryConfig?: { readonly Mirrors?: readonly unknown[] | null } | null;
}

/** How long one read of the mirrors is used before `/info` is asked again. */
export const MIRRORS_MAX_AGE_MS = 5 * 60_000;
/** An engine's settings are trusted, but bounded all the same: more mirrors than this are not tried. */
const MAX_MIRRORS = 8;
const MAX_URL_LENGTH = 2048;

/**
 * The usable mirrors, in the engine's order, as origins (`http://127.0.0.1:5000`). Docker accepts http and https
 * mirrors with an optional path; a mirror with a path prefix is left out (the registry client speaks to a
 * registry's root), and so is anything that is not an http(s) URL.
 */
export function mirrorsOf(info: MirrorsInfo, skipped?: (mirror: string, why: string) => void): readonly string[] {
  const listed = Array.isArray(info.RegistryConfig?.Mirrors) ? info.RegistryConfig.Mirrors : [];
  const mirrors: string[] = [];
  for (const entry of listed) {
    if (mirrors.length === MAX_MIRRORS) break;
    if (typeof entry !== 'string' || entry.length > MAX_URL_LENGTH) continue;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      skipped?.('(unparsable entry)', 'not a URL');
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') skipped?.(url.origin, 'not http or https');
    else if (url.pathname !== '/' && url.pathname !== '') skipped?.(url.origin, 'has a path prefix');
    else if (!mirrors.includes(url.origin)) mirrors.push(url.origin);
  }
  return mirrors;
}

/**
 * The engine's mirrors, read from `info(maxAgeMs)` at most every MIRRORS_MAX_AGE_MS. When `/info` cannot be read
 * (a socket proxy without INFO=1, docs/security.md) there are none: Docker Hub is asked directly, as without
 * mirrors, which can never report a stale mirror's answer. Said once per engine.
 */
export function mirrorsReader(info: (maxAgeMs: number) => Promise<MirrorsInfo>, logger: Logger, host: string): () => Promise<readonly string[]> {
  let warned = false;
  const said = new Set<string>();
  return async () => {
    try {
      return mirrorsOf(await info(MIRRORS_MAX_AGE_MS), (mirror, why) => {
        if (said.has(mirror)) return;
        said.add(mirror);
        logger.warn({ host, mirror, why }, 'registry mirror not used for checks');
      });
    } catch (err) {
      if (!warned) logger.warn({ host, err: errorMessage(err) }, 'cannot read the engine\'s registry mirrors (GET /info): Docker Hub is asked directly');
      warned = true;
      return [];
    }
  };
}
