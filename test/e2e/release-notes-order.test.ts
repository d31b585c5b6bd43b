// docs/versions.md#release-notes through the real binary, engine and registry, with the loopback fake of
// GitHub's "List releases" (shaped as GitHub documents it; GitHub itself cannot run here): the notes are
// chosen and ordered by version, not by GitHub's list order — running 2.0.0 with 2.1.0 out, a backport v1.9.5
// published after 2.1.0 (so listed first) is not among them — and when the running version is older than every
// release of the pages read, all of those up to the new one are listed (the newest 10), not only the latest.
import t from 'tap';
import { FakeGitHub, type FakeRelease } from '../helpers/fake-github.js';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-release-notes-order-token-0123456789';

interface Details {
  name: string;
  latest_image_version?: string;
  release_notes?: { version: string; title: string; url: string; body: string }[];
}

const release = (tag: string, published: string): FakeRelease => ({ tag_name: tag, name: `Release ${tag}`, body: `Changes of ${tag}`, published_at: published });

t.test('release notes by version: a later backport left out, and every newer release read listed', async (t) => {
  const s = await scenario(t, 'e2e-notes-order');
  if (!s) return;
  const gh = await FakeGitHub.start({ limit: 1_000 });
  t.teardown(() => gh.close());
  gh.setRepo('acme', 'app', { branches: { main: '1'.repeat(40) } });
  gh.setRepo('acme', 'old', { branches: { main: '2'.repeat(40) } });
  // GitHub lists by publication: the backport 1.9.5 came out after 2.1.0.
  gh.setReleases('acme', 'app', [
    release('v1.9.5', '2026-03-05T10:00:00Z'),
    release('v2.1.0', '2026-03-01T10:00:00Z'),
    release('v2.0.1', '2026-02-01T10:00:00Z'),
    release('v1.9.4', '2026-01-20T10:00:00Z'),
    release('v2.0.0', '2026-01-10T10:00:00Z'),
  ]);
  // Three full pages (90 releases) all newer than the running 1.0.0: 2.0.0 … 2.89.0, newest first.
  gh.setReleases('acme', 'old', Array.from({ length: 90 }, (_, i) => release(`v2.${89 - i}.0`, new Date(Date.UTC(2026, 0, 1) + (89 - i) * 86_400_000).toISOString())));

  const deploy = async (app: string, source: string, running: string, next: string) => {
    const repo = `${s.prefix}/${app}`;
    const labels = (v: string) => ({ 'org.opencontainers.image.source': source, 'org.opencontainers.image.version': v });
    const v1 = await pushImage({ registry: s.env.registry, repo, tag: running, marker: `${repo} ${running}`, cmd: QUICK_STOP_CMD, labels: labels(running) });
    await pullImage(s.engine, v1.ref);
    await runContainer(s.engine, { name: `${s.prefix}-${app}`, image: v1.ref, labels: { 'tidewatch.tag.policy': 'major' } });
    await pushImage({ registry: s.env.registry, repo, tag: next, marker: `${repo} ${next}`, cmd: QUICK_STOP_CMD, labels: labels(next) });
  };
  await deploy('app', 'https://github.com/acme/app', '2.0.0', '2.1.0');
  await deploy('old', 'https://github.com/acme/old', '1.0.0', '2.89.0');

  const service = await startService([
    '--host', s.env.dockerHost, '--http-api-token', TOKEN, '--http-api-endpoints', 'check,containers',
    '--release-notes', '--git-github-api-url', gh.url, `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  t.equal((await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })).status, 200);
  const details = new Map(((await call(`${service.url}/v1/containers/details`, { token: TOKEN })).body as { containers: Details[] }).containers.map((c) => [c.name, c]));

  const app = details.get(`${s.prefix}-app`);
  t.equal(app?.latest_image_version, '2.1.0');
  t.same(app?.release_notes?.map((n) => n.version), ['v2.1.0', 'v2.0.1'], 'by version, newest first; the later backport v1.9.5 is not newer than 2.0.0');

  const old = details.get(`${s.prefix}-old`);
  t.equal(old?.release_notes?.length, 10, 'the running version is older than every release read: the newest 10 of them, not only the latest');
  t.same(old?.release_notes?.map((n) => n.version), Array.from({ length: 10 }, (_, i) => `v2.${89 - i}.0`), 'in version order');
  t.equal(gh.count({ path: '/repos/acme/old/releases' }), 3, 'three pages read, as bounded');
  t.ok(gh.requests.every((r) => r.path.startsWith('/repos/')), 'only the documented routes');
});
