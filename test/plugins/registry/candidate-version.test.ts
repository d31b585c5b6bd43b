// The version a stale container would move to (docs/versions.md), read from the real registry of the test
// environment without pulling: the config label of a Docker schema2 image, the manifest annotation of an OCI
// image, the index's own annotation, and the running platform's child of an index; read once per digest,
// and never for a container that is up to date.
import t from 'tap';
import { requireEnv } from '../../helpers/env.js';
import { pushImage, testPrefix } from '../../helpers/images.js';
import { harness, target } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('candidate-version');
const VERSION = 'org.opencontainers.image.version';

const gets = (h: { events: { type: string; data: unknown }[] }): number =>
  h.events.filter((e) => e.type === 'registry_request' && (e.data as { method: string }).method === 'GET').length;

t.test('docker config label, OCI annotation, index annotation, index child; cached by digest; up to date reads nothing', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const registry = env.registry;
  // What runs: version 1.0.0 of each image, pulled under its tag.
  const cases = [
    { name: 'label', spec: { format: 'docker' as const, labels: { [VERSION]: '2.4.0' } }, want: '2.4.0' },
    { name: 'annotation', spec: { format: 'oci' as const, annotations: { [VERSION]: '3.1.0' } }, want: '3.1.0' },
    { name: 'index', spec: { format: 'oci' as const, index: true, indexAnnotations: { [VERSION]: '4.0.0' } }, want: '4.0.0' },
    { name: 'list', spec: { format: 'docker' as const, index: true, labels: { [VERSION]: '5.2.1' } }, want: '5.2.1' },
    { name: 'none', spec: { format: 'docker' as const }, want: undefined },
  ];
  const running = await Promise.all(
    cases.map((c) => pushImage({ registry, repo: `${prefix}/${c.name}`, marker: 'old', ...c.spec, labels: { [VERSION]: '1.0.0' }, annotations: {}, indexAnnotations: {} })),
  );
  const targets = cases.map((c, i) => target(c.name, running[i]!.ref, [running[i]!.digestRef]));
  const h = await harness(targets);
  t.teardown(() => h.tw.close());

  let report = await h.check();
  for (const c of cases) t.equal(readFinding(h.byName(report, c.name).staleness, FINDINGS.version), undefined, `${c.name}: up to date, no version asked for`);
  const upToDate = gets(h);
  report = await h.check();
  t.equal(gets(h), upToDate, 'a check of an up-to-date fleet makes no GET (HEADs only)');

  // The candidates: new pushes under the same tags.
  const pushed = await Promise.all(cases.map((c) => pushImage({ registry, repo: `${prefix}/${c.name}`, marker: 'new', ...c.spec })));
  report = await h.check();
  for (const [i, c] of cases.entries()) {
    const s = h.byName(report, c.name).staleness;
    t.equal(s.stale, true, `${c.name}: stale`);
    t.equal(s.latestDigest, pushed[i]!.digest);
    t.equal(readFinding(s, FINDINGS.version), c.want, `${c.name}: the candidate's version`);
  }
  const firstReads = gets(h);
  t.ok(firstReads >= upToDate + cases.length, 'the candidates were read');

  report = await h.check();
  t.equal(gets(h), firstReads, 'a second check reads no manifest or config again: the version is cached by digest');
  t.equal(readFinding(h.byName(report, 'label').staleness, FINDINGS.version), '2.4.0');
});
