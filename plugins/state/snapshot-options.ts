// The snapshot options (docs/snapshots.md#options), declared by the state plugin that keeps the snapshots.
import { TidewatchError, option } from '../../core/index.js';

const group = 'Volume snapshots';
const UNITS: Readonly<Record<string, number>> = {
  '': 1, b: 1, k: 1024, kb: 1000, kib: 1024, m: 1024 ** 2, mb: 1000 ** 2, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1000 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tb: 1000 ** 4, tib: 1024 ** 4,
};
const SIZE_ACCEPTED = 'expected a size such as 500MiB, 1GiB or 2GB (digits alone are bytes), greater than zero';

/** `1GiB`, `500MiB`, `2GB`, `1073741824` → bytes. */
export function parseSize(raw: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new TidewatchError('TW_ERR_INVALID_VALUE', SIZE_ACCEPTED, 400);
  return bytes;
}

export const snapshotOptions = {
  snapshotVolumes: option.boolean({
    flag: 'snapshot-volumes', watchtowerEnv: null, group,
    description: 'Snapshot the read-write named volumes of every container before it is updated, restored if the update is rolled back (needs --data-dir; the label tidewatch.snapshot=volumes asks for one container).',
  }),
  snapshotRetention: option.integer({
    flag: 'snapshot-retention', watchtowerEnv: null, default: 3, min: 1, max: 1000, group,
    description: 'Snapshots kept per container; older ones are removed when a new one is taken.',
  }),
  snapshotMaxSize: option.custom<number>({
    flag: 'snapshot-max-size', watchtowerEnv: null, kind: 'string', valueName: '<size>', default: 1024 ** 3, parse: parseSize, group,
    schema: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer', minimum: 1 }] },
    description: "A container's snapshot at most this large (the tar files on disk; default 1GiB); above it the update is skipped (snapshot too large).",
  }),
};
