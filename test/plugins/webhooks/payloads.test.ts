// Recorded payload shapes of every kind (docs/webhooks.md#payloads), through the real HTTP server: which
// containers each one makes Tidewatch re-check, that a burst is one run, that pulls, deletes, blobs and
// artifact tags start nothing, that duplicates are dropped, and that runs carry trigger webhook:<receiver>.
import t from 'tap';
import type { Target } from '../../../core/index.js';
import { signBody } from '../../../plugins/webhooks/auth.js';
import { parseReceivers } from '../../../plugins/webhooks/receivers.js';
import { fakeTarget } from '../../helpers/targets.js';
import { sleep, startHooks, waitFor, type HookHarness } from './helpers/harness.js';

const TOKEN = 'payload-token';
const SECRET = "It's a Secret to Everybody";
const D = (c: string) => `sha256:${c.repeat(64)}`;
const MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const INDEX = 'application/vnd.oci.image.index.v1+json';

const target = (name: string, image: string, labels: Record<string, string> = {}): Target =>
  fakeTarget(name, { runtime: 'stub', image, labels });

const TARGETS = [
  target('app', '127.0.0.1:5000/team/app:latest'),
  target('app-stable', '127.0.0.1:5000/team/app:stable'),
  target('app-policy', '127.0.0.1:5000/team/app:1.2.0', { 'tidewatch.tag.policy': 'minor' }),
  target('app-pinned', '127.0.0.1:5000/team/app:1.2.0', { 'tidewatch.tag.policy': 'pin' }),
  target('app-digest-policy', '127.0.0.1:5000/team/app:1.2.0', { 'tidewatch.tag.policy': 'digest' }),
  target('elsewhere', '127.0.0.2:5000/team/app:latest'),
  target('hub', 'svendowideit/testhook:latest'),
  target('harbor-app', 'harbor.example.com/library/app:v1'),
  target('quay-app', 'quay.io/mynamespace/repository:latest'),
  target('ghcr-app', 'ghcr.io/octo-org/hello:latest'),
  target('git-main', '127.0.0.1:5000/team/gitapp:main', {
    'tidewatch.git.repo': 'https://github.com/Octo-Org/Hello-World.git',
    'tidewatch.git.ref': 'main',
  }),
  target('git-head', '127.0.0.1:5000/team/gitapp:head', { 'com.centurylinklabs.watchtower.git.repo': 'github.com/octo-org/hello-world' }),
  target('git-dev', '127.0.0.1:5000/team/gitapp:dev', { 'tidewatch.git.repo': 'https://github.com/octo-org/hello-world', 'tidewatch.git.ref': 'dev' }),
];

const RECEIVERS = parseReceivers(
  [
    `reg=distribution,token=${TOKEN}`,
    `hub=dockerhub,token=${TOKEN}`,
    `harbor=harbor,token=${TOKEN}`,
    `quay=quay,token=${TOKEN}`,
    `gh=github,secret=${SECRET}`,
    `any=generic,token=${TOKEN},action=update`,
  ].join(';'),
  { origin: 'flag', cwd: process.cwd() },
);

/** One Distribution event as the registry 2.8 sends it. */
function distEvent(id: string, action: string, mediaType: string, digest: string, tag?: string, repository = 'team/app') {
  return {
    id,
    timestamp: '2026-11-24T09:00:00Z',
    action,
    target: { mediaType, size: 525, digest, length: 525, repository, url: `http://127.0.0.1:5000/v2/${repository}/manifests/${digest}`, ...(tag ? { tag } : {}) },
    request: { id: 'r', addr: '127.0.0.1:40000', host: '127.0.0.1:5000', method: action === 'push' ? 'PUT' : 'GET', useragent: 'docker/27' },
    actor: {},
    source: { addr: 'registry:5000', instanceID: 'i' },
  };
}

/** Posts, waits for the run it starts (or for the debounce to pass without one), and names what it checked. */
async function runOf(h: HookHarness, post: () => Promise<{ status: number }>): Promise<{ status: number; names: string[]; trigger?: string; kind?: string }> {
  const before = h.runs().length;
  const { status } = await post();
  await sleep(400);
  const runs = h.runs().slice(before);
  if (runs.length === 0) return { status, names: [] };
  const run = runs[0]!;
  await waitFor(() => h.checked(run.run_id).length > 0 || h.events.some((e) => e.type === 'scan_completed' && e.data.run_id === run.run_id));
  if (runs.length > 1) throw new Error(`expected one run, got ${runs.length}`);
  return { status, names: h.checked(run.run_id).sort(), trigger: run.trigger, kind: run.kind };
}

const bearer = { authorization: `Bearer ${TOKEN}` };

t.test('every kind, end to end through the server', async (t) => {
  const h = await startHooks({ receivers: RECEIVERS, debounceMs: 150 }, TARGETS);
  t.teardown(() => h.close());

  await t.test('distribution: a tag push; pulls, deletes and blobs ride along and start nothing', async (t) => {
    const body = {
      events: [
        distEvent('e1', 'push', MANIFEST, D('1'), 'latest'),
        distEvent('e2', 'push', 'application/vnd.docker.image.rootfs.diff.tar.gzip', D('2')),
        distEvent('e3', 'push', 'application/vnd.docker.container.image.v1+json', D('3')),
        distEvent('e4', 'pull', MANIFEST, D('4'), 'stable'),
        distEvent('e5', 'delete', MANIFEST, D('5'), 'stable'),
      ],
    };
    const run = await runOf(h, () => h.post('/v1/hooks/reg', body, { ...bearer, 'content-type': 'application/vnd.docker.distribution.events.v1+json' }));
    t.equal(run.status, 202);
    t.same(run.names, ['app', 'app-policy'], 'the pushed tag, and the tag-policy container; not stable, not another registry');
    t.equal(run.trigger, 'webhook:reg');
    t.equal(run.kind, 'check', 'action defaults to check');
    const again = await runOf(h, () => h.post('/v1/hooks/reg', body, bearer));
    t.same(again.names, [], 'the same events again (a registry retry): duplicates, no run');
  });

  await t.test('distribution: a multi-platform push with its platform manifests and a signature is ONE run', async (t) => {
    const before = h.runs().length;
    const posts = [
      { events: [distEvent('m1', 'push', MANIFEST, D('a'))] },
      { events: [distEvent('m2', 'push', MANIFEST, D('b'))] },
      { events: [distEvent('m3', 'push', INDEX, D('c'), 'latest')] },
      { events: [distEvent('m4', 'push', MANIFEST, D('d'), `sha256-${'c'.repeat(64)}.sig`)] },
      { events: [distEvent('m5', 'push', MANIFEST, D('e'), `sha256-${'c'.repeat(64)}.att`)] },
    ];
    // Sent at once, as a registry sends a push's notifications: on a loaded machine one after the other may take
    // longer than the debounce between two (the signature's hint joins the burst since it re-checks its image).
    const answers = await Promise.all(posts.map((body) => h.post('/v1/hooks/reg', body, bearer)));
    t.same(answers.map((a) => a.status), posts.map(() => 202));
    await sleep(600);
    const runs = h.runs().slice(before);
    t.equal(runs.length, 1, 'one run for the burst');
    await waitFor(() => h.checked(runs[0]!.run_id).length > 0);
    t.same(h.checked(runs[0]!.run_id).sort(), ['app', 'app-digest-policy', 'app-pinned', 'app-policy', 'app-stable'], 'digest-only platform manifests concern every container of the repository');
  });

  await t.test('signature and attestation tags alone start nothing', async (t) => {
    const run = await runOf(h, () =>
      h.post('/v1/hooks/reg', { events: [distEvent('s1', 'push', MANIFEST, D('f'), 'v1.sig'), distEvent('s2', 'push', MANIFEST, D('9'), 'v1.sbom')] }, bearer),
    );
    t.equal(run.status, 202);
    t.same(run.names, []);
  });

  await t.test("a cosign signature's push re-checks every container of its repository; an attestation's does not", async (t) => {
    for (const [id, tag] of [['sig1', `sha256-${'7'.repeat(64)}.sig`], ['sig2', `sha256-${'8'.repeat(64)}`]] as const) {
      const run = await runOf(h, () => h.post('/v1/hooks/reg', { events: [distEvent(id, 'push', INDEX, D('5'), tag)] }, bearer));
      t.same(run.names.sort(), ['app', 'app-digest-policy', 'app-pinned', 'app-policy', 'app-stable'], `${tag.slice(-8)}: the signed digest may be any tag's`);
      const retry = await runOf(h, () => h.post('/v1/hooks/reg', { events: [distEvent(id, 'push', INDEX, D('5'), tag)] }, bearer));
      t.same(retry.names, [], 'the same event again (a registry retry): a duplicate');
    }
    const att = await runOf(h, () => h.post('/v1/hooks/reg', { events: [distEvent('att1', 'push', MANIFEST, D('6'), `sha256-${'7'.repeat(64)}.att`)] }, bearer));
    t.same(att.names, [], 'an attestation signs nothing');
  });

  await t.test('dockerhub', async (t) => {
    const body = {
      callback_url: 'https://registry.hub.docker.com/u/svendowideit/testhook/hook/2141b5bi5i5b02bec211i4eeih0242eg11000a/',
      push_data: { pushed_at: 1417566161, pusher: 'trustedbuilder', tag: 'latest' },
      repository: { name: 'testhook', namespace: 'svendowideit', repo_name: 'svendowideit/testhook', repo_url: 'https://registry.hub.docker.com/u/svendowideit/testhook/', status: 'Active' },
    };
    const run = await runOf(h, () => h.post(`/v1/hooks/hub/${TOKEN}`, body));
    t.same(run.names, ['hub']);
    t.equal(run.trigger, 'webhook:hub');
  });

  await t.test('harbor', async (t) => {
    const body = {
      type: 'PUSH_ARTIFACT',
      occur_at: 1700000000,
      operator: 'admin',
      event_data: {
        resources: [{ digest: D('7'), tag: 'v1', resource_url: 'harbor.example.com/library/app:v1' }],
        repository: { date_created: 1700000000, name: 'app', namespace: 'library', repo_full_name: 'library/app', repo_type: 'private' },
      },
    };
    const run = await runOf(h, () => h.post('/v1/hooks/harbor', body, { authorization: TOKEN }));
    t.same(run.names, ['harbor-app'], "Harbor's auth header, raw");
    const pulled = await runOf(h, () => h.post('/v1/hooks/harbor', { ...body, type: 'PULL_ARTIFACT' }, bearer));
    t.same(pulled.names, []);
  });

  await t.test('quay', async (t) => {
    const body = {
      repository: 'mynamespace/repository',
      namespace: 'mynamespace',
      name: 'repository',
      docker_url: 'quay.io/mynamespace/repository',
      homepage: 'https://quay.io/repository/mynamespace/repository',
      updated_tags: ['latest'],
    };
    const run = await runOf(h, () => h.post(`/v1/hooks/quay/${TOKEN}`, body));
    t.same(run.names, ['quay-app']);
  });

  await t.test('github: registry_package and package events for ghcr.io, HMAC over the raw body', async (t) => {
    const body = JSON.stringify({
      action: 'published',
      registry_package: {
        name: 'hello',
        namespace: 'octo-org',
        package_type: 'CONTAINER',
        package_version: { version: D('8'), container_metadata: { tag: { name: 'latest', digest: D('8') } }, package_url: 'ghcr.io/octo-org/hello:latest' },
        registry: { url: 'https://ghcr.io' },
      },
    });
    const headers = (event: string, delivery: string, payload = body) => ({ 'x-github-event': event, 'x-github-delivery': delivery, 'x-hub-signature-256': signBody(SECRET, payload) });
    const run = await runOf(h, () => h.post('/v1/hooks/gh', body, headers('registry_package', 'd-1')));
    t.same(run.names, ['ghcr-app']);
    t.equal(run.trigger, 'webhook:gh');
    const redelivered = await runOf(h, () => h.post('/v1/hooks/gh', body, headers('registry_package', 'd-1')));
    t.same(redelivered.names, [], 'a redelivery (same X-GitHub-Delivery) is a duplicate');
    const pkg = JSON.stringify({
      action: 'published',
      package: { name: 'hello', namespace: 'octo-org', package_type: 'container', package_version: { container_metadata: { tag: { name: 'latest', digest: D('6') } } } },
    });
    const viaPackage = await runOf(h, () => h.post('/v1/hooks/gh', pkg, headers('package', 'd-2', pkg)));
    t.same(viaPackage.names, ['ghcr-app'], 'the package event, owner and name on ghcr.io');
    const forged = await h.post('/v1/hooks/gh', body, { ...headers('registry_package', 'd-3'), 'x-hub-signature-256': signBody('guess', body) });
    t.equal(forged.status, 401);
    const ping = await runOf(h, () => h.post('/v1/hooks/gh', '{"zen":"Design for failure."}', headers('ping', 'd-4', '{"zen":"Design for failure."}')));
    t.equal(ping.status, 202);
    t.same(ping.names, []);
  });

  await t.test('github push: the Git-watched containers of that repository and ref', async (t) => {
    const push = (ref: string, after: string) =>
      JSON.stringify({
        ref,
        before: '0'.repeat(40),
        after,
        deleted: false,
        repository: {
          full_name: 'Octo-Org/Hello-World',
          clone_url: 'https://github.com/Octo-Org/Hello-World.git',
          html_url: 'https://github.com/Octo-Org/Hello-World',
          ssh_url: 'git@github.com:Octo-Org/Hello-World.git',
          default_branch: 'main',
        },
      });
    const send = (payload: string, delivery: string) =>
      h.post('/v1/hooks/gh', payload, { 'x-github-event': 'push', 'x-github-delivery': delivery, 'x-hub-signature-256': signBody(SECRET, payload) });
    const main = await runOf(h, () => send(push('refs/heads/main', 'a'.repeat(40)), 'p-1'));
    t.same(main.names, ['git-head', 'git-main'], 'git.ref main, and no git.ref (the default branch)');
    const dev = await runOf(h, () => send(push('refs/heads/dev', 'b'.repeat(40)), 'p-2'));
    t.same(dev.names, ['git-dev']);
    const other = await runOf(h, () => send(push('refs/heads/feature', 'c'.repeat(40)), 'p-3'));
    t.same(other.names, [], 'a branch no container follows');
  });

  await t.test('generic with action=update: an update run through the normal path, trigger on its events and history', async (t) => {
    const before = h.runs().length;
    t.equal((await h.post('/v1/hooks/any', { repository: '127.0.0.1:5000/team/app', tag: 'stable' }, bearer)).status, 202);
    await waitFor(() => h.runs().length > before);
    const run = h.runs()[before]!;
    t.equal(run.kind, 'update');
    t.equal(run.trigger, 'webhook:any');
    await waitFor(() => h.events.some((e) => e.type === 'scan_completed' && e.data.run_id === run.run_id));
    t.same(h.checked(run.run_id), ['app-stable', 'app-policy'].filter((n) => h.checked(run.run_id).includes(n)));
    t.ok(h.checked(run.run_id).includes('app-stable') && !h.checked(run.run_id).includes('app'), 'the pushed tag only (and tag-policy)');
    const entry = h.tw.history.entries().find((e) => e.runId === run.run_id);
    t.equal(entry?.trigger, 'webhook:any', 'the history entry names the trigger');
    t.equal(entry?.targeted, true, 'a targeted run');
  });
});
