// One verdict per candidate digest (docs/signatures.md#verdicts): find the signatures, verify them, and
// remember the answer. A digest names immutable content and the keys are fixed for the process, so a
// `verified` verdict is kept (bounded, least recently used dropped first); `unsigned` and `invalid` are
// kept for a while (a signature may be pushed after the image); `error` is never kept.
import { errorMessage, parseImageReference, type SignatureVerdict } from '../../core/index.js';
import { verifyBundle, type BundleTrust } from './bundle.js';
import type { SignatureFinder } from './find.js';
import { verifyLegacyKeyless } from './legacy-keyless.js';
import { verifyLegacy, type Outcome } from './simple-signing.js';

export interface Verdict {
  readonly verdict: SignatureVerdict;
  readonly reason: string;
}

export interface VerdictOptions {
  readonly maxEntries?: number;
  /** How long `unsigned` and `invalid` are believed, ms. */
  readonly negativeTtlMs?: number;
  readonly now?: () => number;
  /** Told of every verification made (not of cached answers): metrics and logs. */
  readonly onVerdict?: (image: string, digest: string, verdict: Verdict) => void;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;

export class Verdicts {
  readonly #finder: SignatureFinder;
  readonly #trust: BundleTrust;
  readonly #cache = new Map<string, { verdict: Verdict; until: number }>();
  readonly #pending = new Map<string, Promise<Verdict>>();
  readonly #max: number;
  readonly #negativeTtl: number;
  readonly #now: () => number;
  readonly #onVerdict: VerdictOptions['onVerdict'];

  constructor(finder: SignatureFinder, trust: BundleTrust, options: VerdictOptions = {}) {
    this.#finder = finder;
    this.#trust = trust;
    this.#max = options.maxEntries ?? 4096;
    this.#negativeTtl = options.negativeTtlMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#onVerdict = options.onVerdict;
  }

  /**
   * The verdict on `digest` of the repository `image` names; concurrent askers share one verification.
   * `fresh`: a negative verdict in the cache is not believed (a person's targeted update, right after signing).
   */
  verdict(image: string, digest: string, signal?: AbortSignal, options: { fresh?: boolean } = {}): Promise<Verdict> {
    const repo = parseImageReference(image);
    const key = `${repo.registry}/${repo.repository}@${digest}`;
    const hit = this.#cache.get(key);
    if (hit && hit.until > this.#now() && !(options.fresh && hit.verdict.verdict !== 'verified')) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return Promise.resolve(hit.verdict);
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      const started: Promise<Verdict> = this.#verify(`${repo.registry}/${repo.repository}`, repo.registry, digest, signal).then((verdict) => {
        // A verification overtaken by recheck() (a signature arrived meanwhile) answers its askers, nothing more.
        if (this.#pending.get(key) === started) this.#remember(key, verdict);
        this.#onVerdict?.(image, digest, verdict);
        return verdict;
      });
      started.finally(() => this.#pending.get(key) === started && this.#pending.delete(key)).catch(() => undefined);
      this.#pending.set(key, started);
      pending = started;
    }
    return pending;
  }

  /**
   * Forgets a negative verdict on `digest` of `repository` (`registry/repository`), and any verification of it
   * in flight: a signature arrived, so the next asker verifies again. A `verified` verdict stays.
   */
  recheck(repository: string, digest: string): boolean {
    const key = `${repository}@${digest}`;
    const inFlight = this.#pending.delete(key);
    const hit = this.#cache.get(key);
    if (!hit || hit.verdict.verdict === 'verified') return inFlight;
    this.#cache.delete(key);
    return true;
  }

  get size(): number {
    return this.#cache.size;
  }

  #remember(key: string, verdict: Verdict): void {
    if (verdict.verdict === 'error') return;
    const ttl = verdict.verdict === 'verified' ? Number.POSITIVE_INFINITY : this.#negativeTtl;
    this.#cache.delete(key);
    this.#cache.set(key, { verdict, until: this.#now() + ttl });
    while (this.#cache.size > this.#max) this.#cache.delete(this.#cache.keys().next().value as string);
  }

  async #verify(repository: string, registry: string, digest: string, signal?: AbortSignal): Promise<Verdict> {
    if (!DIGEST.test(digest)) return { verdict: 'error', reason: `cannot verify "${digest}": not a sha256 digest` };
    const rejected: string[] = [];
    let attestations = 0;
    const judge = (outcome: Outcome): string | undefined => {
      if (outcome.ok) return outcome.by;
      if (outcome.attestation) attestations++;
      else rejected.push(outcome.why);
      return undefined;
    };
    try {
      for (const bundle of await this.#finder.bundles(repository, registry, digest, signal)) {
        const by = judge(verifyBundle(bundle, digest, this.#trust));
        if (by) return { verdict: 'verified', reason: `signed by ${by}` };
      }
      for (const legacy of await this.#finder.legacy(repository, digest, signal)) {
        const by = judge(verifyLegacy(legacy, digest, this.#trust.keys, (s) => verifyLegacyKeyless(s, this.#trust)));
        if (by) return { verdict: 'verified', reason: `signed by ${by}` };
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      return { verdict: 'error', reason: `cannot read the signatures of ${digest}: ${errorMessage(err)}` };
    }
    if (rejected.length > 0) {
      const more = rejected.length > 1 ? ` (and ${rejected.length - 1} more)` : '';
      const first = rejected[0] as string;
      return { verdict: 'invalid', reason: first.includes(digest) ? `${first}${more}` : `${first}${more} for ${digest}` };
    }
    if (attestations > 0) return { verdict: 'unsigned', reason: `no cosign signature for ${digest}, only ${attestations} attestation(s)` };
    return { verdict: 'unsigned', reason: `no cosign signature for ${digest}` };
  }
}
