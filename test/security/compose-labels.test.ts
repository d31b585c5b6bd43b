// Threat model row "an image's Compose labels" (docs/security.md#threat-model): the Compose labels name files on the
// host, and --compose-rewrite writes them. A container inherits its image's labels, so an image that bakes in
// `com.docker.compose.project.config_files=/somewhere/on/the/host.yml` must not make Tidewatch rewrite that file:
// only the labels Compose set on the container (values the image does not carry) count. The file is real; the same
// container with the operator's labels is still rewritten.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FINDINGS, withFinding, type ApplyResult, type Staleness, type UpdatePlan } from '../../core/index.js';
import { followCompose } from '../../plugins/docker/compose/follow-up.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { fakeTarget } from '../helpers/targets.js';

const YAML = 'services:\n  web:\n    image: nginx:1.25.3-alpine\n';
const staleness: Staleness = withFinding(
  { source: 'registry', stale: true, latestTag: '1.25.4-alpine', latestDigest: `sha256:${'b'.repeat(64)}` } as Staleness,
  FINDINGS.tags,
  { currentTag: '1.25.3-alpine', updateKind: 'patch' },
);

t.test('Compose labels baked into the image do not name a file to rewrite; the operator\'s still do', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-sec-compose-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'host-file.yml');
  writeFileSync(file, YAML);
  const composeLabels = {
    'com.docker.compose.project': 'app',
    'com.docker.compose.service': 'web',
    'com.docker.compose.project.config_files': file,
    'com.docker.compose.project.working_dir': dir,
  };
  const run = async (imageLabels: Record<string, string>) => {
    const target = fakeTarget('app-web-1', { runtime: 'docker', image: 'nginx:1.25.3-alpine', labels: composeLabels, imageLabels });
    const plan: UpdatePlan = { target, staleness, restartOnly: false, dependents: [] };
    const result: ApplyResult = { target, outcome: 'updated', oldImageId: 'sha256:old', newImageId: 'sha256:new' };
    return followCompose(plan, result, true, memoryLogger());
  };

  const inherited = await run(composeLabels);
  t.equal(readFileSync(file, 'utf8'), YAML, 'the host file named by the image is untouched');
  t.notMatch(inherited.note ?? '', /host-file\.yml/, 'nor named in the result');

  const operators = await run({});
  t.match(readFileSync(file, 'utf8'), /image: nginx:1\.25\.4-alpine/, 'the operator\'s Compose file is rewritten');
  t.match(operators.note ?? '', /rewritten/);
});
