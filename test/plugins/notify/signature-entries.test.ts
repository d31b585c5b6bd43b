// The signature verdict in a notification's entries (docs/signatures.md#verdicts): a verified image is an
// info line, anything else a warning saying what the update did (skipped under enforce, applied under warn).
import t from 'tap';
import { FINDINGS, withFinding, type CheckResult, type SignatureCheck, type Staleness, type UpdateReport } from '../../../core/index.js';
import { runOutcome } from '../../../plugins/notify/outcome.js';
import { fakeTarget } from '../../helpers/targets.js';

const digest = `sha256:${'4f'.repeat(32)}`;

const stale: Staleness = { source: 'registry', stale: true, latestDigest: digest };

function checkOf(name: string, signature?: SignatureCheck): CheckResult {
  return { target: fakeTarget(name), staleness: signature ? withFinding(stale, FINDINGS.signature, signature) : stale, checkedAt: new Date() };
}

function update(checks: CheckResult[]): UpdateReport {
  const at = new Date();
  return { runId: 'r1', targeted: false, summary: { scanned: 0, updated: 0, failed: 0, restarted: 0, skipped: 1 }, checks, results: [], skipped: [], startedAt: at, finishedAt: at };
}

t.test('verdict lines', async (t) => {
  const checks = [
    checkOf('ok', { verdict: 'verified', digest, reason: 'signed by key ecdsa-p256 abc', policy: 'enforce' }),
    checkOf('refused', { verdict: 'unsigned', digest, reason: `no cosign signature for ${digest}`, policy: 'enforce' }),
    checkOf('warned', { verdict: 'invalid', digest, reason: 'no configured key verifies', policy: 'warn' }),
    checkOf('off'),
  ];
  const outcome = runOutcome({ run_id: 'r1', kind: 'update', report: update(checks) });
  const lines = (name: string) => outcome.entries.filter((e) => e.container === name && e.message.startsWith('Signature'));
  t.match(lines('ok'), [{ level: 'info', message: /^Signature of .*demo\/ok:latest \(4f4f4f4f4f4f\) verified: signed by key ecdsa-p256/ }]);
  t.match(lines('refused'), [{ level: 'warn', message: /unsigned, update skipped: no cosign signature for sha256:4f/ }]);
  t.match(lines('warned'), [{ level: 'warn', message: /invalid, updated anyway \(warn\)/ }]);
  t.same(lines('off'), [], 'no line when verification is off');
  const check = runOutcome({ run_id: 'r2', kind: 'check', report: { runId: 'r2', results: checks, startedAt: new Date(), finishedAt: new Date() } as never });
  t.match(check.entries.filter((e) => e.container === 'refused' && e.message.startsWith('Signature')), [{ message: /unsigned: no cosign/ }], 'a check says no action');
});
