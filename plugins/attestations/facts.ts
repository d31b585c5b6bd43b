// What the publisher proved about one candidate digest (docs/attestations.md#what-it-costs): its verified
// vulnerability report and SLSA provenance, read once through the ATTESTATION_VERIFIER service and kept by digest.
// A digest names immutable content and the trust is fixed for the process, so complete facts are kept (bounded,
// least recently used dropped first); facts with something missing are kept for a while (an attestation may be
// pushed after the image); a read that failed is not kept. Only the derived facts are kept, never the reports.
import { parseImageReference } from '../../core/index.js';
import type { AttestationVerifier } from '../../contracts/index.js';
import { PROVENANCE_PREDICATE, readProvenance, type ProvenanceFacts } from './provenance.js';
import { readVulnerabilities, VULN_PREDICATE, type VulnerabilityFacts } from './vulnerabilities.js';

export interface AttestationFacts {
  readonly vulnerabilities?: VulnerabilityFacts;
  readonly provenance?: ProvenanceFacts;
  /** Why a kind of attestation is absent: none found, none verified, or none readable. */
  readonly missing: { readonly vulnerabilities?: string; readonly provenance?: string };
}

export interface FactsOptions {
  readonly maxEntries?: number;
  readonly negativeTtlMs?: number;
  readonly now?: () => number;
  /** What the gate asks for: facts that hold it are complete, and kept for good. */
  readonly needs?: { readonly vulnerabilities: boolean; readonly provenance: boolean };
}

const TYPES = [VULN_PREDICATE, PROVENANCE_PREDICATE];

function why(kind: string, rejected: readonly string[], unreadable: readonly string[]): string {
  const reasons = [...unreadable, ...rejected];
  return reasons.length === 0 ? `no ${kind} attestation` : `no verified ${kind} attestation (${reasons.slice(0, 2).join('; ')})`;
}

/** The facts of a read: the newest verified scan, the first verified provenance. */
export function factsOf(read: Awaited<ReturnType<AttestationVerifier['read']>>): AttestationFacts {
  let vulnerabilities: VulnerabilityFacts | undefined;
  let provenance: ProvenanceFacts | undefined;
  const unreadable: { vulnerabilities: string[]; provenance: string[] } = { vulnerabilities: [], provenance: [] };
  for (const a of read.verified) {
    if (a.predicateType === VULN_PREDICATE) {
      const facts = readVulnerabilities(a.predicate, a.signer);
      if ('why' in facts) unreadable.vulnerabilities.push(facts.why);
      else if (!vulnerabilities || facts.scannedAt > vulnerabilities.scannedAt) vulnerabilities = facts;
    } else if (a.predicateType === PROVENANCE_PREDICATE && !provenance) {
      const facts = readProvenance(a.predicate, a.signer);
      if ('why' in facts) unreadable.provenance.push(facts.why);
      else provenance = facts;
    }
  }
  return {
    ...(vulnerabilities ? { vulnerabilities } : {}),
    ...(provenance ? { provenance } : {}),
    missing: {
      ...(vulnerabilities ? {} : { vulnerabilities: why('vulnerability', read.rejected, unreadable.vulnerabilities) }),
      ...(provenance ? {} : { provenance: why('provenance', read.rejected, unreadable.provenance) }),
    },
  };
}

export class FactsCache {
  readonly #verifier: AttestationVerifier;
  readonly #cache = new Map<string, { facts: AttestationFacts; until: number }>();
  readonly #pending = new Map<string, Promise<AttestationFacts>>();
  readonly #max: number;
  readonly #negativeTtl: number;
  readonly #now: () => number;
  readonly #needs: { readonly vulnerabilities: boolean; readonly provenance: boolean };

  constructor(verifier: AttestationVerifier, options: FactsOptions = {}) {
    this.#verifier = verifier;
    this.#max = options.maxEntries ?? 4096;
    this.#negativeTtl = options.negativeTtlMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#needs = options.needs ?? { vulnerabilities: true, provenance: true };
  }

  /** The facts of `digest` in the repository `image` names; concurrent askers share one read. */
  facts(image: string, digest: string, signal?: AbortSignal): Promise<AttestationFacts> {
    const repo = parseImageReference(image);
    const key = `${repo.registry}/${repo.repository}@${digest}`;
    const hit = this.#cache.get(key);
    if (hit && hit.until > this.#now()) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return Promise.resolve(hit.facts);
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#verifier.read(image, digest, TYPES, signal).then(factsOf);
      const started = pending;
      started.then((facts) => this.#remember(key, facts)).catch(() => undefined).finally(() => this.#pending.delete(key));
      this.#pending.set(key, started);
    }
    return pending;
  }

  get size(): number {
    return this.#cache.size;
  }

  #remember(key: string, facts: AttestationFacts): void {
    const complete = (!this.#needs.vulnerabilities || facts.vulnerabilities !== undefined) && (!this.#needs.provenance || facts.provenance !== undefined);
    this.#cache.delete(key);
    this.#cache.set(key, { facts, until: complete ? Number.POSITIVE_INFINITY : this.#now() + this.#negativeTtl });
    while (this.#cache.size > this.#max) this.#cache.delete(this.#cache.keys().next().value as string);
  }
}
