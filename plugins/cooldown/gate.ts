// The cooldown decision for one stale target: defer while the new image is younger than the delay.
// The age comes from the `created` field of the new image's config on the registry (through the
// core's REMOTE_IMAGES service, which the registry plugin provides); an age that cannot be read
// defers too, because the point of a cooldown is to never take an image too young to judge.
import {
  errorMessage,
  formatImageReference,
  parseImageReference,
  readLabel,
  type RunContext,
  type Skip,
  type Staleness,
  type Target,
} from '../../core/index.js';
import type { RemoteImages } from '../../contracts/index.js';
import { formatDuration, parseCooldownLabel } from './duration.js';

export const BY = 'cooldown';

export interface CooldownSettings {
  /** Global delay, ms; 0 is off. */
  readonly delayMs: number;
  /** `os/arch[/variant]` to age in a multi-arch index; default the registry plugin's. */
  readonly platform?: string;
  readonly now?: () => number;
}

/** The delay for this target: the label when it parses (`0` turns it off), else the global one. */
export function delayFor(target: Target, settings: CooldownSettings, ctx: RunContext): number {
  const label = readLabel(target.labels, 'cooldown-delay');
  if (label === undefined) return settings.delayMs;
  try {
    return parseCooldownLabel(label);
  } catch (err) {
    ctx.logger.warn({ container: target.name, err: errorMessage(err) }, 'ignoring the cooldown-delay label');
    return settings.delayMs;
  }
}

/** `registry/repo@<latest digest>`: the exact image an update would pull, not whatever the tag says later. */
function latestReference(target: Target, latestDigest: string): string {
  const ref = parseImageReference(target.image);
  return formatImageReference({ ...ref, tag: undefined, digest: latestDigest });
}

export async function cooldownGate(
  images: RemoteImages,
  target: Target,
  staleness: Staleness,
  ctx: RunContext,
  settings: CooldownSettings,
): Promise<Skip | undefined> {
  // Checks only report; the cooldown gates applying updates (docs/http-api-contract.md §4.2).
  if (ctx.kind !== 'update') return undefined;
  // Only an update to a registry digest has an age to wait for, whichever source named the digest
  // (docs/plugins.md#gates): restart-only dependents, local (no-pull) and Git comparisons name none and are
  // left alone, as Watchtower skips no-pull containers.
  if (!staleness.stale || !staleness.latestDigest) return undefined;
  const delayMs = delayFor(target, settings, ctx);
  if (delayMs <= 0) return undefined;

  let created: Date | undefined;
  let why = 'the image config has no creation time';
  try {
    const reference = latestReference(target, staleness.latestDigest);
    const platform = settings.platform;
    created = await ctx.memo(`cooldown:created:${reference}:${platform ?? ''}`, () =>
      images.created(reference, { signal: ctx.signal, ...(platform ? { platform } : {}) }),
    );
  } catch (err) {
    why = errorMessage(err);
  }
  if (!created || Number.isNaN(created.getTime())) {
    return { reason: `cooldown: image creation time unavailable (${why}); update deferred`, by: BY };
  }
  const now = settings.now?.() ?? Date.now();
  const age = now - created.getTime();
  if (age < 0) {
    ctx.logger.warn({ container: target.name, created: created.toISOString() }, 'image created in the future (clock skew?); cooldown not applied');
    return undefined;
  }
  if (age > delayMs) return undefined;
  const until = new Date(created.getTime() + delayMs);
  return {
    reason: `cooldown: image created ${formatDuration(age)} ago, delay ${formatDuration(delayMs)}, eligible in ${formatDuration(until.getTime() - now)}`,
    by: BY,
    until,
  };
}
