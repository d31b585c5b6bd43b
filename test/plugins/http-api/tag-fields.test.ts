// The tag policy's fields in /v1/check records and /v1/containers/details (docs/tags.md#what-the-api-shows),
// each present only when it applies, and `old_image` beside `image` in update_completed.
import t from 'tap';
import { bearer, recordEvents, startApi, target } from './helpers/harness.js';
import { asStaleness } from '../../helpers/staleness.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

function world() {
  return {
    targets: [
      target('moved', { image: '127.0.0.1:5101/demo/pg:16.4', repoDigests: [`127.0.0.1:5101/demo/pg@${D1}`] }),
      target('noted', { image: '127.0.0.1:5101/demo/pg:16.4', repoDigests: [`127.0.0.1:5101/demo/pg@${D1}`] }),
      target('pinned', { image: '127.0.0.1:5101/demo/pg:16.4', repoDigests: [`127.0.0.1:5101/demo/pg@${D1}`] }),
      target('plain', { image: '127.0.0.1:5101/demo/web:latest', repoDigests: [`127.0.0.1:5101/demo/web@${D1}`] }),
    ],
    staleness: new Map([
      ['moved', asStaleness({ source: 'registry', stale: true, currentDigest: D1, latestDigest: D2, tagPolicy: 'minor', currentTag: '16.4', latestTag: '16.6', updateKind: 'minor' as const })],
      ['noted', asStaleness({ source: 'registry', stale: false, currentDigest: D1, latestDigest: D1, tagPolicy: 'major', currentTag: '16.4', updateKind: 'digest' as const, note: '17.1 exists, but not for linux/amd64' })],
      ['pinned', asStaleness({ source: 'registry', stale: false, currentDigest: D1, tagPolicy: 'pin', currentTag: '16.4' })],
      ['plain', { source: 'registry', stale: true, currentDigest: D1, latestDigest: D2 }],
    ]),
  };
}

t.test('/v1/check and /v1/containers/details carry the tag fields when they apply', async (t) => {
  const h = await startApi({}, world());
  t.teardown(() => h.close());
  const res = await h.api.server!.inject({ method: 'POST', url: '/v1/check', headers: bearer() });
  t.equal(res.statusCode, 200);
  const byName = new Map((res.json().containers as Record<string, unknown>[]).map((c) => [c.name, c]));
  t.match(byName.get('moved'), { update_available: true, latest_digest: D2, tag_policy: 'minor', current_tag: '16.4', latest_tag: '16.6', update_kind: 'minor' });
  t.match(byName.get('noted'), { update_available: false, tag_policy: 'major', current_tag: '16.4', note: '17.1 exists, but not for linux/amd64' });
  t.notOk('update_kind' in (byName.get('noted') ?? {}), 'update_kind only when update_available');
  t.notOk('latest_tag' in (byName.get('noted') ?? {}));
  t.match(byName.get('pinned'), { tag_policy: 'pin', current_tag: '16.4' });
  for (const field of ['tag_policy', 'current_tag', 'latest_tag', 'update_kind', 'note']) {
    t.notOk(field in (byName.get('plain') ?? {}), `no ${field} on the default path`);
  }

  const details = await h.api.server!.inject({ method: 'GET', url: '/v1/containers/details', headers: bearer() });
  t.equal(details.statusCode, 200);
  const views = new Map((details.json().containers as Record<string, unknown>[]).map((c) => [c.name, c]));
  t.match(views.get('moved'), { stale: true, tag_policy: 'minor', current_tag: '16.4', latest_tag: '16.6', update_kind: 'minor' });
  t.match(views.get('noted'), { note: '17.1 exists, but not for linux/amd64' });
  t.notOk('tag_policy' in (views.get('plain') ?? {}));

  const swagger = await h.api.server!.inject({ method: 'GET', url: '/swagger/json' });
  t.equal(swagger.statusCode, 200);
  t.match(swagger.body, /"latest_tag"/, 'the schemas name the fields');
  t.match(swagger.body, /"update_kind":\{"type":"string","enum":\["digest","patch","minor","major"\]/);
});

t.test('update_completed names the reference before and the one now', async (t) => {
  const w = world();
  const h = await startApi({}, {
    ...w,
    targets: w.targets.filter((x) => x.name === 'moved'),
    apply: async (plan) => ({ target: plan.target, outcome: 'updated', newImageId: 'sha256:new', newImage: '127.0.0.1:5101/demo/pg:16.6' }),
  });
  t.teardown(() => h.close());
  const events = recordEvents(h.tw);
  await h.tw.update();
  const done = events.find((e) => e.type === 'update_completed');
  t.match(done?.data, { container: 'moved', image: '127.0.0.1:5101/demo/pg:16.6', old_image: '127.0.0.1:5101/demo/pg:16.4' });
});
