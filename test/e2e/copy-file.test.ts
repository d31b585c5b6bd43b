// The copy-file label through the binary on the real engine (docs/watchtower-fork.md#the-copy-file-label):
// a Compose project run by the real Compose v2, whose `configs:` with `content:` Compose writes into the
// container after creating it. A recreate would lose that file; with the label it survives the update, owner
// and mode kept. In the same run a file over the 1 MiB bound stops its own container's update, which keeps
// running untouched, and a symbolic link is refused the same way.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { stringify } from 'yaml';
import { compose2Path } from '../helpers/compose.js';
import { waitFor } from '../helpers/env.js';
import { pushImage } from '../helpers/images.js';
import { scenario } from '../helpers/scenarios.js';
import { runBinary } from '../helpers/service.js';
import { dockerCli } from '../helpers/tidewatch-image.js';

const run = promisify(execFile);
const LABEL = 'com.centurylinklabs.watchtower.copy-file';
const CONFIG = 'listen: 0.0.0.0:8080\nworkers: 3\n';
const QUICK_STOP = "trap 'exit 0' TERM; sleep 3600 & wait";

t.test('copy-file: a Compose config with content: survives an update; an oversized file or a symlink stops only its own', { timeout: 300_000 }, async (t) => {
  const s = await scenario(t, 'e2e-copy-file');
  if (!s) return;
  const compose = await compose2Path(t, s.env);
  if (!compose) return;
  const { env, engine, prefix } = s;
  const push = (name: string, version: string) => pushImage({ registry: env.registry, repo: `${prefix}/${name}`, marker: `${prefix}/${name} ${version}` });
  const v1 = { app: await push('app', 'v1'), big: await push('big', 'v1'), link: await push('link', 'v1') };
  const shell = (script: string) => ['/bin/sh', '-c', `${script}; ${QUICK_STOP}`];
  const project = {
    services: {
      app: {
        image: v1.app.ref,
        container_name: `${prefix}-app`,
        network_mode: 'none',
        command: shell('true'),
        // /etc/app is in neither image: the copy creates it, as Compose did.
        configs: [{ source: 'app_conf', target: '/etc/app/conf.yml', uid: '1234', gid: '2345', mode: 0o640 }],
        labels: { [LABEL]: '/etc/app/conf.yml,/etc/app/absent.yml' },
      },
      big: {
        image: v1.big.ref,
        container_name: `${prefix}-big`,
        network_mode: 'none',
        command: shell('head -c 1048577 /dev/zero > /big.bin'),
        labels: { [LABEL]: '/big.bin' },
      },
      link: {
        image: v1.link.ref,
        container_name: `${prefix}-link`,
        network_mode: 'none',
        command: shell('ln -s /marker /link'),
        labels: { [LABEL]: '/link' },
      },
    },
    configs: { app_conf: { content: CONFIG } },
  };
  const dir = await mkdtemp(join(tmpdir(), 'tw-copy-file-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'compose.yml'), stringify(project));
  await run(compose, ['--ansi', 'never', '-p', prefix, '-f', join(dir, 'compose.yml'), 'up', '-d'], {
    env: { ...process.env, DOCKER_HOST: env.dockerHost },
    timeout: 120_000,
  });
  const exec = (name: string, script: string) => dockerCli(env, ['exec', `${prefix}-${name}`, '/bin/sh', '-c', script]);
  const fileFacts = (name: string, path: string) => exec(name, `stat -c '%u:%g:%a' ${path} && cat ${path}`);
  const injected = await fileFacts('app', '/etc/app/conf.yml');
  t.equal(injected, `1234:2345:640\n${CONFIG}`.trim(), 'Compose v2 wrote the config into the container');
  await waitFor(async () => (await exec('big', 'test -s /big.bin && echo ok').catch(() => '')) === 'ok', 10_000);
  await waitFor(async () => (await exec('link', 'test -L /link && echo ok').catch(() => '')) === 'ok', 10_000);

  const idOf = async (name: string) => (await engine.getContainer(`${prefix}-${name}`).inspect()).Id;
  const before = { app: await idOf('app'), big: await idOf('big'), link: await idOf('link') };
  for (const name of ['app', 'big', 'link']) await push(name, 'v2');

  const result = await runBinary(['--host', env.dockerHost, '--run-once', '--update-grace-period', '1s', '--stop-timeout', '5s', `${prefix}-.*`], {}, 120_000);
  const output = result.stdout + result.stderr;

  t.not(await idOf('app'), before.app, 'app was replaced');
  t.equal(await fileFacts('app', '/etc/app/conf.yml'), injected, 'the config survived the update with its owner and mode');
  t.match(output, /"path":"\/etc\/app\/absent\.yml"[^\n]*copy-file: path skipped/, 'a path that does not exist is skipped, said in the log');

  const big = await engine.getContainer(`${prefix}-big`).inspect();
  t.equal(big.Id, before.big, 'the container with an oversized file was not replaced');
  t.ok(big.State.Running, 'and it still runs');
  t.match(output, /copy-file of [^\n]*big: \/big\.bin refused: 1048577 bytes, over the limit of 1048576/, 'the refusal names the path and the limit');

  const link = await engine.getContainer(`${prefix}-link`).inspect();
  t.equal(link.Id, before.link, 'the container whose labelled path is a symlink was not replaced');
  t.ok(link.State.Running, 'and it still runs');
  t.match(output, /\/link refused: it is a symbolic link/, 'the refusal says why');
  const staged = await engine.listContainers({ all: true, filters: { name: [prefix] } });
  t.equal(staged.length, 3, 'no staged replacement is left behind');
  if (!t.passing()) t.comment(output.slice(-4000));
});
