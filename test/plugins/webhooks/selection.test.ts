// Which containers a burst of hints concerns (docs/webhooks.md#which-containers): normalised repositories,
// the pushed tag, tag policies from the label or the global --tag-policy, digest-only pushes, Git refs.
import t from 'tap';
import { GIT_PATH, REGISTRY_PATH, isGitWatched, type Target } from '../../../core/index.js';
import { imageHint } from '../../../plugins/webhooks/hints.js';
import { exactNamePattern as exactName } from '../../../core/index.js';
import { addHint, newBatch, selectTargets } from '../../../plugins/webhooks/selection.js';
import { fakeTarget } from '../../helpers/targets.js';

const target = (name: string, image: string, labels: Record<string, string> = {}): Target => fakeTarget(name, { image, labels });
const path = (t: Target) => (isGitWatched(t.labels) ? GIT_PATH : REGISTRY_PATH);

function select(targets: Target[], hints: [string, string | undefined, string | undefined][], policy?: string): string[] {
  const first = imageHint(...hints[0]!);
  if (!first) throw new Error('bad hint');
  const batch = newBatch(first);
  for (const h of hints) addHint(batch, imageHint(...h)!);
  return selectTargets(targets, batch, path, policy).sort();
}

t.test('Docker Hub names are normalised on both sides', async (t) => {
  const targets = [target('a', 'nginx:latest'), target('b', 'docker.io/library/nginx:latest'), target('c', 'index.docker.io/library/nginx:1.25'), target('d', 'ghcr.io/library/nginx:latest')];
  t.same(select(targets, [['index.docker.io/library/nginx', 'latest', undefined]]), ['a', 'b']);
  t.same(select(targets, [['nginx', '1.25', undefined]]), ['c']);
});

t.test('tag policies: the label, else the global default; pin and digest stay on their tag', async (t) => {
  const targets = [
    target('same', 'r.example/app:1.0'),
    target('minor', 'r.example/app:1.0', { 'tidewatch.tag.policy': 'minor' }),
    target('pin', 'r.example/app:1.0', { 'com.centurylinklabs.watchtower.tag.policy': 'pin' }),
    target('digest', 'r.example/app:1.0', { 'tidewatch.tag.policy': 'digest' }),
  ];
  t.same(select(targets, [['r.example/app', '1.1', undefined]]), ['minor']);
  t.same(select(targets, [['r.example/app', '1.1', undefined]], 'major'), ['minor', 'same'], 'the global policy moves unlabelled containers');
  t.same(select(targets, [['r.example/app', '1.0', undefined]]), ['digest', 'minor', 'pin', 'same'], 'the pushed tag: everyone on it');
  t.same(select(targets, [['r.example/app', undefined, `sha256:${'a'.repeat(64)}`]]), ['digest', 'minor', 'pin', 'same'], 'digest only');
});

t.test('exact names survive the request filters (anchored RE2)', async (t) => {
  t.equal(exactName('web.1'), 'web\\.1');
  t.equal(exactName('a-b_c'), 'a-b_c');
});
