// Docker Hub references through the engine's registry mirrors (docs/registry-mirrors.md): the order the
// registries are asked in, and that a mirror's answer equal to the running digest is never "up to date" on its own.
import t from 'tap';
import { createTidewatch, type TidewatchPlugin } from '../../../core/index.js';
import { REGISTRY_MIRRORS } from '../../../contracts/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { digestThroughMirrors, type MirrorQuestions } from '../../../plugins/registry/mirrors.js';
import { FakeRegistry } from './fake-registry.js';
import { emptyConfigDir, stubRuntime, target } from './harness.js';

const RUNNING = `sha256:${'a'.repeat(64)}`;
const NEWER = `sha256:${'b'.repeat(64)}`;

/** Scripted answers: a digest, or an Error to throw; every question is recorded in order. */
function questions(answers: Record<string, string | Error>): MirrorQuestions & { asked: string[] } {
  const asked: string[] = [];
  const answer = async (who: string) => {
    asked.push(who);
    const a = answers[who];
    if (a === undefined || a instanceof Error) throw a ?? new Error(`${who} not scripted`);
    return a;
  };
  return {
    asked,
    reference: 'app:1',
    mirrors: Object.keys(answers).filter((k) => k !== 'hub'),
    askMirror: (mirror) => answer(mirror),
    askHub: () => answer('hub'),
    isRunning: (digest) => digest === RUNNING,
  };
}

t.test('a newer digest on the first mirror is the answer: Docker Hub is not asked', async (t) => {
  const q = questions({ 'http://m1': NEWER, 'http://m2': RUNNING, hub: RUNNING });
  t.same(await digestThroughMirrors(q), { digest: NEWER, mirror: 'http://m1' });
  t.same(q.asked, ['http://m1']);
});

t.test('a failed mirror passes to the next one, in the engine order', async (t) => {
  const q = questions({ 'http://m1': new Error('connect ECONNREFUSED'), 'http://m2': NEWER, hub: RUNNING });
  t.same(await digestThroughMirrors(q), { digest: NEWER, mirror: 'http://m2' });
  t.same(q.asked, ['http://m1', 'http://m2']);
});

t.test('the running digest on a mirror is confirmed with Docker Hub, whose answer counts', async (t) => {
  const upToDate = questions({ 'http://m1': RUNNING, hub: RUNNING });
  t.same(await digestThroughMirrors(upToDate), { digest: RUNNING });
  t.same(upToDate.asked, ['http://m1', 'hub']);
  // A pull-through cache that has not refreshed: Hub knows better (the fork's bug #2409).
  const stale = questions({ 'http://m1': RUNNING, hub: NEWER });
  t.same(await digestThroughMirrors(stale), { digest: NEWER });
});

t.test('the running digest on a mirror with Docker Hub unreachable is an error, never up to date', async (t) => {
  const q = questions({ 'http://m1': RUNNING, 'http://m2': NEWER, hub: new Error('connect ECONNREFUSED 127.0.0.1:443') });
  const err = await digestThroughMirrors(q).then(
    () => undefined,
    (e: unknown) => e as { code?: string; message: string },
  );
  t.equal(err?.code, 'TW_ERR_REGISTRY_MIRROR_UNCONFIRMED');
  t.match(err?.message, /registry mirror http:\/\/m1 serves the running digest of app:1, but Docker Hub could not confirm it \(connect ECONNREFUSED/);
  t.same(q.asked, ['http://m1', 'hub'], 'a later mirror does not outvote the first one');
});

t.test('every mirror failing falls back to Docker Hub; Hub failing too names them all', async (t) => {
  const fallback = questions({ 'http://m1': new Error('404'), hub: NEWER });
  t.same(await digestThroughMirrors(fallback), { digest: NEWER });
  const down = questions({ 'http://m1': new Error('connect ECONNREFUSED 127.0.0.1:1'), hub: new Error('getaddrinfo ENOTFOUND') });
  await t.rejects(digestThroughMirrors(down), /every registry mirror failed \(http:\/\/m1: connect ECONNREFUSED 127\.0\.0\.1:1\), and Docker Hub: getaddrinfo ENOTFOUND/);
});

t.test('through the registry source: a Hub reference asks the mirror the runtime lists, by its own host', async (t) => {
  const mirror = await new FakeRegistry().start();
  t.teardown(() => mirror.close());
  const newer = mirror.push('library/app', '1');
  const asked: (string | undefined)[] = [];
  const mirrors: TidewatchPlugin<object> = {
    name: 'mirrors-provider',
    apply(core) {
      core.services.provide(REGISTRY_MIRRORS, {
        mirrorsFor: async (host) => {
          asked.push(host);
          return [`http://${mirror.host}`];
        },
      });
    },
  };
  const hub = { ...target('hub', 'app:1', [`app@${RUNNING}`]), host: 'unix:///engine-a' };
  const local = target('local', `${mirror.host}/library/app:1`, [`${mirror.host}/library/app@${newer}`]);
  const tw = await createTidewatch({
    plugins: [stubRuntime(() => [hub, local]), mirrors, { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } }],
  });
  t.teardown(() => tw.close());
  const report = await tw.check();
  const s = report.results.find((r) => r.target.name === 'hub')?.staleness;
  t.same(s, { source: 'registry', stale: true, currentDigest: RUNNING, latestDigest: newer, note: `newer digest found on registry mirror http://${mirror.host}` });
  t.ok(asked.length > 0 && asked.every((host) => host === 'unix:///engine-a'), 'asked for the target engine\'s mirrors, and only for the Docker Hub reference');
  t.equal(mirror.count((r) => r.method === 'HEAD' && r.path === '/v2/library/app/manifests/1'), 2, 'the mirror answered the Hub reference (and the local one its own)');
  // The candidate's version (docs/versions.md) is read where the digest was found: Hub is not asked, so a
  // network that drops Hub traffic costs no timeout per stale check.
  t.ok(mirror.count((r) => r.method === 'GET' && r.path === `/v2/library/app/manifests/${newer}`) >= 1, 'the candidate\'s manifest was read from the mirror');
});
