// Embedding docker + registry only, as README.md shows, with no Git plugin: a Git-watched container is
// still on the `git` watch path. It is reported as unchecked-with-an-error, never registry-checked (the
// registry's access log proves no request for its image), while a plain container is checked as usual.
import t from 'tap';
import { createTidewatch } from '../../core/index.js';
import { dockerPlugin } from '../../plugins/docker/index.js';
import { registryPlugin } from '../../plugins/registry/index.js';
import { docker, logMark, requireEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../helpers/images.js';
import { emptyConfigDir } from '../plugins/registry/harness.js';

t.test('docker + registry without the git plugin: a Git-watched container is not registry-checked', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('embed-split');
  t.teardown(() => removeContainers(engine, prefix));

  const gitImage = await pushImage({ registry: env.registry, repo: `${prefix}/from-git`, marker: 'g1' });
  const plainImage = await pushImage({ registry: env.registry, repo: `${prefix}/plain`, marker: 'p1' });
  await pullImage(engine, gitImage.ref);
  await pullImage(engine, plainImage.ref);
  await runContainer(engine, {
    name: `${prefix}-git`,
    image: gitImage.ref,
    labels: { 'tidewatch.git.repo': 'http://127.0.0.1:9/never-contacted.git' },
  });
  await runContainer(engine, { name: `${prefix}-plain`, image: plainImage.ref });
  // The registry moves on for both images: only the plain container may find out.
  await pushImage({ registry: env.registry, repo: `${prefix}/from-git`, marker: 'g2' });
  await pushImage({ registry: env.registry, repo: `${prefix}/plain`, marker: 'p2' });

  const tw = await createTidewatch({
    plugins: [
      { plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${prefix}-.*`] } },
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
    ],
  });
  t.teardown(() => tw.close());
  const mark = await logMark(env.registryLog);
  const report = await tw.check();
  const byName = new Map(report.results.map((r) => [r.target.name, r.staleness]));

  t.match(byName.get(`${prefix}-git`), { source: 'git', stale: false, error: /no staleness source for git-watched containers/ });
  t.match(byName.get(`${prefix}-plain`), { source: 'registry', stale: true });
  await new Promise((r) => setTimeout(r, 300)); // the registry logs a request after answering it
  const lines = await mark.read();
  t.ok(lines.some((l) => l.includes(`/v2/${prefix}/plain/manifests/`)), 'the plain image was asked about');
  t.notOk(lines.some((l) => l.includes(`/v2/${prefix}/from-git/`)), 'the Git-watched image never was');
});
