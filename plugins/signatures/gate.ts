// Where verdicts meet runs (docs/signatures.md): the `review` tap puts the verdict on a stale target's
// latestDigest into its findings (so checks report it), and the gate, after cooldown, lets an update
// through under `enforce` only when that exact digest is verified, the digest the runtime then pulls
// (docs/plugins.md#the-staleness-protocol). `warn` reports and never holds an update back.
import {
  errorMessage,
  FINDINGS,
  readFinding,
  readLabel,
  withFinding,
  type RunContext,
  type SignatureCheck,
  type Skip,
  type Staleness,
  type Target,
} from '../../core/index.js';
import { POLICIES, type Policy } from './options.js';
import type { Verdict, Verdicts } from './verdicts.js';

export const BY = 'signatures';

/** The target's policy: its `tidewatch.verify` label when valid, else the global one. */
export function policyFor(target: Target, global: Policy, ctx?: RunContext): Policy {
  const label = readLabel(target.labels, 'verify');
  if (label === undefined) return global;
  const value = label.trim().toLowerCase();
  if ((POLICIES as readonly string[]).includes(value)) return value as Policy;
  ctx?.logger.warn({ container: target.name, label }, 'ignoring the verify label (off, warn or enforce)');
  return global;
}

async function verdictFor(verdicts: Verdicts, target: Target, digest: string, ctx: RunContext): Promise<Verdict> {
  try {
    // A targeted update (a person's, or a webhook's) verifies a negative verdict again rather than believe the
    // cache: the signature may have been pushed a moment ago (docs/signatures.md#what-it-costs-per-check).
    return await verdicts.verdict(target.image, digest, ctx.signal, { fresh: ctx.kind === 'update' && ctx.targeted });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { verdict: 'error', reason: errorMessage(err) };
  }
}

/** The `review` tap: a stale answer with a latestDigest gets the verdict on that digest. */
export async function reviewSignature(verdicts: Verdicts, global: Policy, staleness: Staleness, target: Target, ctx: RunContext): Promise<Staleness> {
  const policy = policyFor(target, global, ctx);
  if (policy === 'off' || !staleness.latestDigest) return staleness;
  const digest = staleness.latestDigest;
  const { verdict, reason } = await verdictFor(verdicts, target, digest, ctx);
  const signature: SignatureCheck = { verdict, reason, digest, policy };
  return withFinding(staleness, FINDINGS.signature, signature);
}

/** The gate: under enforce, anything but a verified latestDigest is skipped with a reason `signature …`. */
export async function signatureGate(verdicts: Verdicts, global: Policy, target: Target, staleness: Staleness, ctx: RunContext): Promise<Skip | undefined> {
  if (!staleness.stale) return undefined;
  const policy = policyFor(target, global);
  if (policy === 'off') return undefined;
  const digest = staleness.latestDigest;
  if (!digest) {
    if (policy === 'warn') return undefined;
    return { reason: 'signature error: no registry digest to verify (only registry images can be verified)', by: BY };
  }
  // The review tap's verdict when it judged this very digest; otherwise (a plugin's own path) judge now.
  const reviewed = readFinding(staleness, FINDINGS.signature);
  const check = reviewed?.digest === digest ? reviewed : await verdictFor(verdicts, target, digest, ctx);
  if (check.verdict === 'verified') return undefined;
  if (policy === 'warn') {
    ctx.logger.warn({ container: target.name, digest, signature: check.verdict, reason: check.reason }, 'updating an image whose signature is not verified (warn)');
    return undefined;
  }
  const reason = `signature ${check.verdict}: ${check.reason}`;
  ctx.logger.warn({ container: target.name, digest, signature: check.verdict, reason }, 'update skipped: the signature is not verified (enforce)');
  return { reason, by: BY };
}
