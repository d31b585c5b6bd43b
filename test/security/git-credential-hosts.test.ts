// Threat model row "an image's git.repo label" (docs/security.md#threat-model): an image that names a Git host of
// its publisher's choosing in `LABEL tidewatch.git.repo=…` must not receive `--git-token`, on a plain scheduled
// check under --monitor-only; the same repository on a host the operator listed in --git-credential-hosts does.
// The Git host is the real `git http-backend` behind Basic auth, logging every request it receives. A listed host
// reached over plain http that is not loopback gets nothing either (a logging server).
import t from 'tap';
import { CredentialHosts, parseCredentialHost } from '../../plugins/git/credential-hosts.js';
import { parseRepoUrl } from '../../plugins/git/repo-url.js';
import { SmartHttpClient } from '../../plugins/git/smart-http.js';
import { CaptureServer, never, rejectsWithout, type Answer } from '../helpers/capture-server.js';
import { docker, requireEnv } from '../helpers/env.js';
import { GitServer } from '../helpers/git-server.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const API_TOKEN = 'security-git-api-token-0123456789';
const GIT_TOKEN = 'ghp_security_git_token_must_not_leak';

interface CheckRecord {
  name: string;
  update_source: string;
  git_commit?: string;
  error?: string;
}

t.test('a git.repo label baked into an image gets no token; a host the operator listed does', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('sec-git');
  // The "attacker's" host: it asks for credentials (401) and logs whatever it is sent.
  const host = await GitServer.start({ auth: { username: 'oauth2', password: GIT_TOKEN } });
  t.teardown(async () => {
    await host.close();
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  const [r1] = (await host.createRepo('x')) as [string];
  const image = await pushImage({
    registry: env.registry,
    repo: `${prefix}/app`,
    labels: { 'tidewatch.git.repo': host.repoUrl('x'), 'org.opencontainers.image.revision': r1 },
    cmd: QUICK_STOP_CMD,
  });
  await pullImage(engine, image.ref);
  const name = `${prefix}-app`;
  // No label at `docker run`: the git.repo label is the image's own, inherited.
  await runContainer(engine, { name, image: image.ref });

  const check = async (extra: string[]): Promise<CheckRecord> => {
    const service = await startService([
      '--host', env.dockerHost,
      '--http-api-endpoints', 'check',
      '--http-api-token', API_TOKEN,
      '--monitor-only',
      '--git-token', GIT_TOKEN,
      ...extra,
      `${prefix}-.*`,
    ]);
    try {
      const res = await call(`${service.url}/v1/check`, { method: 'POST', token: API_TOKEN });
      t.equal(res.status, 200);
      return (res.body as { containers: CheckRecord[] }).containers.find((c) => c.name === name) as CheckRecord;
    } finally {
      await service.stop();
    }
  };

  const unlisted = await check([]);
  t.ok(host.requests.length > 0, 'the label\'s host was asked (anonymously)');
  t.same(host.requests.filter((r) => r.authorization !== undefined), [], 'no request carried any Authorization');
  t.match(unlisted, { update_source: 'git', error: /401.*--git-credential-hosts/ }, 'the check says why it stayed anonymous');
  t.notMatch(JSON.stringify(unlisted), new RegExp(GIT_TOKEN), 'the token is not in the record');

  host.resetRequests();
  const listed = await check(['--git-credential-hosts', `github.com,${new URL(host.url).host}`]);
  t.match(listed, { update_source: 'git', git_commit: r1 }, 'the listed host answered the credentialed request');
  t.notOk(listed.error, 'no error');
  const expected = `Basic ${Buffer.from(`oauth2:${GIT_TOKEN}`).toString('base64')}`;
  t.ok(host.requests.some((r) => r.authorization === expected), 'the operator\'s host received the token');
});

t.test('a listed host that redirects elsewhere: the next hop is judged on its own and gets nothing', async (t) => {
  const sink = await new CaptureServer().start();
  const front = await new CaptureServer().start();
  t.teardown(async () => {
    await sink.close();
    await front.close();
  });
  sink.answer = () => ({ status: 401, headers: { 'www-authenticate': 'Basic realm="sink"' } });
  front.answer = (req): Answer =>
    req.headers.authorization
      ? { status: 307, headers: { location: `${sink.origin}/x.git/info/refs?service=git-upload-pack` } }
      : { status: 401, headers: { 'www-authenticate': 'Basic realm="front"' } };
  const client = new SmartHttpClient({
    token: GIT_TOKEN,
    credentialHosts: new CredentialHosts([parseCredentialHost(front.host)]),
    timeoutMs: 30_000,
  });
  const repo = parseRepoUrl(`${front.origin}/x.git`);
  t.equal(repo.kind, 'smart-http');
  if (repo.kind !== 'smart-http') return;
  const message = await rejectsWithout(client.advertisement(repo, never()), [GIT_TOKEN]);
  t.match(message, /401/, 'the other host\'s challenge is reported');
  t.ok(front.requests.some((r) => r.headers.authorization), 'the listed host received the credentials');
  t.ok(sink.requests.length > 0, 'the redirect was followed');
  t.same(sink.requests.filter((r) => r.headers.authorization !== undefined), [], 'the other host received no credentials');
});

t.test('a listed host over plain http that is not loopback gets nothing', async (t) => {
  // The host listens on loopback; named by its IPv4-mapped address (`[::ffff:7f00:1]`) it is not loopback to the
  // rule (docs/interface.md#git-credentials) while the request still reaches it and is logged.
  const host = await new CaptureServer().start();
  t.teardown(() => host.close());
  host.answer = () => ({ status: 401, headers: { 'www-authenticate': 'Basic realm="plain"' } });
  const port = host.host.split(':')[1] as string;
  const client = new SmartHttpClient({
    token: GIT_TOKEN,
    credentialHosts: new CredentialHosts([parseCredentialHost(`[::ffff:7f00:1]:${port}`)]),
    timeoutMs: 30_000,
  });
  const repo = parseRepoUrl(`http://[::ffff:7f00:1]:${port}/x.git`);
  t.equal(repo.kind, 'smart-http');
  if (repo.kind !== 'smart-http') return;
  const message = await rejectsWithout(client.advertisement(repo, never()), [GIT_TOKEN]);
  t.match(message, /401/, 'the challenge is reported');
  t.ok(host.requests.length > 0, 'the listed host was asked (anonymously)');
  t.same(host.requests.filter((r) => r.headers.authorization !== undefined), [], 'no request carried any Authorization');
});
