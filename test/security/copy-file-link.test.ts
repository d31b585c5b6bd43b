// Threat model row "the new image's files" (docs/security.md#threat-model): the new image makes `/etc/app` a
// symbolic link to a bind-mount point, so that the file the copy-file label carries would be written through it
// into a host directory, as root. Three containers on the real engine: a read-write bind (the host file must stay
// as it was), a read-only bind (the update must not fail on it), and a container running as uid 1000 (no
// root-owned file may appear in the host directory). In each, a plain file named by the same label is still
// carried, and the log and the audit entry of each update say which path was left out and why.
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js';
import { call, runBinary, startService } from '../helpers/service.js';
import { dockerCli } from '../helpers/tidewatch-image.js';

const LABEL = 'tidewatch.copy-file';
const HOST_CONTENT = 'HOST ORIGINAL\n';
const PUBLISHED = 'written by whoever publishes the image\n';
const TOKEN = 'security-copy-file-audit-token-0123';
const REASON = 'copy-file: /etc/app is a symbolic link in the new image';

interface Variant {
  readonly name: string;
  readonly bind: 'rw' | 'ro';
  readonly user?: string;
  /** The host directory starts with a file the attack would overwrite. */
  readonly hostFile: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: 'rw', bind: 'rw', hostFile: true },
  { name: 'ro', bind: 'ro', hostFile: true },
  { name: 'uid', bind: 'rw', user: '1000', hostFile: false },
];

t.test('copy-file never writes through a symbolic link of the new image into a bind mount', { timeout: 300_000 }, async (t) => {
  const s = await scenario(t, 'sec-copy-link');
  if (!s) return;
  const { env, engine, prefix } = s;
  const hostDirs = new Map<string, string>();
  const dataDir = await mkdtemp(join(tmpdir(), 'tw-sec-copy-data-'));
  t.teardown(async () => {
    for (const dir of hostDirs.values()) await rm(dir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  for (const v of VARIANTS) {
    const dir = await mkdtemp(join(tmpdir(), `tw-sec-copy-${v.name}-`));
    await chmod(dir, 0o755);
    if (v.hostFile) await writeFile(join(dir, 'conf.yml'), HOST_CONTENT);
    hostDirs.set(v.name, dir);
    const repo = `${prefix}/${v.name}`;
    // v1: /etc/app/conf.yml and /plain.txt are the container's own files, the ones the label carries.
    const v1 = await pushImage({
      registry: env.registry,
      repo,
      marker: `${repo} v1`,
      files: { 'etc/app/conf.yml': PUBLISHED, 'plain.txt': 'PLAIN\n' },
      cmd: QUICK_STOP_CMD,
    });
    await pullImage(engine, v1.ref);
    await runContainer(engine, {
      name: `${prefix}-${v.name}`,
      image: v1.ref,
      labels: { [LABEL]: '/etc/app/conf.yml,/plain.txt' },
      ...(v.user ? { user: v.user } : {}),
      hostConfig: { Binds: [`${dir}:/hostdir:${v.bind}`] },
    });
    // v2: /etc/app is now a link to the bind-mount point, and /plain.txt is gone (only the carry brings it back).
    await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, symlinks: { 'etc/app': '/hostdir' }, cmd: QUICK_STOP_CMD });
  }

  const idOf = async (name: string) => (await engine.getContainer(`${prefix}-${name}`).inspect()).Id;
  const before = new Map<string, string>();
  for (const v of VARIANTS) before.set(v.name, await idOf(v.name));

  const result = await runBinary(
    ['--host', env.dockerHost, '--run-once', '--data-dir', dataDir, '--update-grace-period', '1s', '--stop-timeout', '5s', `${prefix}-.*`],
    {},
    180_000,
  );
  const output = result.stdout + result.stderr;

  for (const v of VARIANTS) {
    const dir = hostDirs.get(v.name) as string;
    const now = await engine.getContainer(`${prefix}-${v.name}`).inspect();
    t.not(now.Id, before.get(v.name), `${v.name}: the container was updated`);
    t.ok(now.State.Running, `${v.name}: and runs`);
    if (v.hostFile) t.equal(await readFile(join(dir, 'conf.yml'), 'utf8'), HOST_CONTENT, `${v.name}: the host file is untouched`);
    t.same(await readdir(dir), v.hostFile ? ['conf.yml'] : [], `${v.name}: nothing new in the host directory`);
    const plain = await dockerCli(env, ['exec', `${prefix}-${v.name}`, 'cat', '/plain.txt']);
    t.equal(plain, 'PLAIN', `${v.name}: the plain file was still carried`);
  }
  const said = output.split('\n').filter((line) => line.includes(REASON));
  t.equal(said.length >= VARIANTS.length, true, 'the log says, for each, which path was left out and why');

  // The audit trail says it too (decisions.md §18, docs/state.md): read back through the API on the same data directory.
  const service = await startService(['--host', env.dockerHost, '--data-dir', dataDir, '--monitor-only', '--http-api-endpoints', 'audit', '--http-api-token', TOKEN, `${prefix}-.*`]);
  try {
    for (const v of VARIANTS) {
      const audit = await call(`${service.url}/v1/audit?container=${prefix}-${v.name}`, { token: TOKEN });
      t.match(audit.body, { entries: [{ action: 'update', outcome: 'updated', note: new RegExp(REASON) }] }, `${v.name}: the audit entry's note names the path and why`);
    }
  } finally {
    await service.stop();
  }
  if (!t.passing()) t.comment(output.slice(-6000));
});
