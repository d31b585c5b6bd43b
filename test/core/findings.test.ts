// The findings slot (docs/plugins.md#findings): a typed key, one line per finding made when it is written,
// and the lines a display shows for the findings it has no field of its own for.
import t from 'tap';
import { DOCUMENTED_FINDING_KEYS, FINDINGS, defineFinding, findingLines, readFinding, withFinding, type Staleness } from '../../core/index.js';

interface Scan {
  critical: number;
  scanner: string;
}
const SCAN = defineFinding<Scan>('example.scan', { summary: (s) => `${s.critical} critical\n(by ${s.scanner})` });

t.test('a finding is written on a copy, read back typed, and reads as one line', async (t) => {
  const answer: Staleness = { source: 'registry', stale: true };
  const found = withFinding(answer, SCAN, { critical: 2, scanner: 'grype' });
  t.equal(answer.findings, undefined, 'the answer written on is left as it was');
  t.same(readFinding(found, SCAN), { critical: 2, scanner: 'grype' });
  t.equal(found.findings?.['example.scan']?.summary, '2 critical (by grype)', 'line breaks become spaces');
  t.equal(readFinding(found, FINDINGS.signature), undefined, 'another key is absent');
  t.equal(readFinding(undefined, SCAN), undefined);
  const again = withFinding(found, SCAN, { critical: 0, scanner: 'grype' });
  t.equal(readFinding(again, SCAN)?.critical, 0, 'a second write of a key replaces the first');
});

t.test('a long line is cut at 200 characters', async (t) => {
  const LONG = defineFinding<string>('long', { summary: (s) => s });
  const line = withFinding({ source: 'x', stale: true } as Staleness, LONG, 'x'.repeat(500)).findings?.long?.summary ?? '';
  t.equal(line.length, 200);
  t.ok(line.endsWith('…'));
});

t.test('findingLines leaves out the findings a display names itself', async (t) => {
  let answer: Staleness = { source: 'registry', stale: true };
  answer = withFinding(answer, FINDINGS.signature, { verdict: 'verified', digest: 'sha256:1', reason: 'signed by k', policy: 'warn' });
  answer = withFinding(answer, SCAN, { critical: 1, scanner: 'trivy' });
  t.same(findingLines(answer), [
    { key: 'signature', summary: 'signature verified: signed by k' },
    { key: 'example.scan', summary: '1 critical (by trivy)' },
  ]);
  t.same(findingLines(answer, DOCUMENTED_FINDING_KEYS), [{ key: 'example.scan', summary: '1 critical (by trivy)' }]);
});

t.test('a key is lower-case words joined by dots', async (t) => {
  t.throws(() => defineFinding('Bad Key', { summary: () => '' }), /lower-case words/);
  t.throws(() => defineFinding('<b>', { summary: () => '' }), /lower-case words/);
  t.doesNotThrow(() => defineFinding('acme.vuln-scan', { summary: () => '' }));
});
