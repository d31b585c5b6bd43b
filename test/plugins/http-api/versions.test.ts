// Versions and release notes in the HTTP API (docs/versions.md): `latest_image_version` beside
// `current_image_version` in /v1/containers and /v1/containers/details for a container with an update,
// `release_notes` and `changelog` in /details, `changelog` in the /v1/check record (which, as the spec says,
// has no latest-version field); nothing of the kind for a container that is up to date.
import t from 'tap';
import type { Staleness } from '../../../core/index.js';
import { bearer, startApi, target } from './helpers/harness.js';
import { asStaleness } from '../../helpers/staleness.js';

const VERSION = 'org.opencontainers.image.version';
const NOTES = {
  url: 'https://github.com/acme/web/releases/tag/v2.4.0',
  entries: [
    { version: 'v2.4.0', title: 'Two four', url: 'https://github.com/acme/web/releases/tag/v2.4.0', publishedAt: '2026-03-01T10:00:00.000Z', body: '## Fixed\n- a bug' },
    { version: 'v2.3.1', title: 'v2.3.1', url: 'https://github.com/acme/web/releases/tag/v2.3.1', body: '' },
  ],
};

t.test('latest_image_version, release_notes and changelog', async (t) => {
  const staleness = new Map<string, Staleness>([
    ['web', asStaleness({ source: 'registry', stale: true, latestDigest: `sha256:${'b'.repeat(64)}`, latestVersion: '2.4.0', releaseNotes: NOTES })],
    ['db', { source: 'registry', stale: false, latestDigest: `sha256:${'c'.repeat(64)}` }],
  ]);
  const targets = [target('web', { imageLabels: { [VERSION]: '2.3.0' } }), target('db', { imageLabels: { [VERSION]: '16.4' } })];
  const h = await startApi({}, { targets, staleness });
  t.teardown(() => h.close());
  const get = async (path: string) => (await (await fetch(`${h.url}${path}`, { headers: bearer() })).json()) as { containers: Record<string, unknown>[] };
  const byName = (body: { containers: Record<string, unknown>[] }, name: string) => body.containers.find((c) => c.name === name);

  const check = await (await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() })).json() as { containers: Record<string, unknown>[] };
  t.match(byName(check, 'web'), { current_image_version: '2.3.0', changelog: NOTES.url });
  t.notOk('latest_image_version' in (byName(check, 'web') ?? {}), 'the check record keeps the spec\'s fields');
  t.notOk('changelog' in (byName(check, 'db') ?? {}));

  const list = await get('/v1/containers');
  t.match(byName(list, 'web'), { current_image_version: '2.3.0', latest_image_version: '2.4.0', update_available: true });
  t.match(byName(list, 'db'), { current_image_version: '16.4', update_available: false });
  t.notOk('latest_image_version' in (byName(list, 'db') ?? {}), 'up to date: no latest version');

  const details = await get('/v1/containers/details');
  t.match(byName(details, 'web'), {
    current_image_version: '2.3.0',
    latest_image_version: '2.4.0',
    changelog: NOTES.url,
    release_notes: [
      { version: 'v2.4.0', title: 'Two four', url: NOTES.entries[0]!.url, published_at: '2026-03-01T10:00:00.000Z', body: '## Fixed\n- a bug' },
      { version: 'v2.3.1', title: 'v2.3.1', url: NOTES.entries[1]!.url, body: '' },
    ],
  });
  t.notOk('release_notes' in (byName(details, 'db') ?? {}));
});
