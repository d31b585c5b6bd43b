// An agent from the distribution image (docs/fleet.md#two-hosts-with-compose, issue 47): the image built from
// the top-level Dockerfile runs `agent` as a container on Docker 28.5 with the containerd image store, the
// engine's socket mounted and its key kept in the image's /data, dialling a controller process on the host
// (--network host: the private engines have no bridge). Through it the controller checks and updates a
// container on that engine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import t from 'tap';
import { enrolToken, waitForAgent } from '../helpers/agents.js';
import { requireDocker28 } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/ports.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

const TOKEN = 'image-agent-token-0123456789';

t.test('the image as an agent on Docker 28.5 (containerd store): enrolled, checked and updated through', { timeout: 900_000 }, async (t) => {
  const found = await requireDocker28(t, 'store');
  if (!found) return;
  const { env, engine } = found;
  const image = await tidewatchImage(env);
  // The image is built on the main engine; the Docker 28.5 engine gets it as `docker save | docker load`.
  const moved = spawnSync('bash', ['-c', `docker -H ${env.dockerHost} save ${image} | docker -H ${engine.host} load -q`], { encoding: 'utf8', timeout: 300_000 });
  t.equal(moved.status, 0, `image loaded on Docker 28.5: ${moved.stderr}`);

  const d28 = new Docker({ socketPath: engine.socket });
  const prefix = testPrefix('img-agent');
  const agentName = `${prefix}-agent`;
  t.teardown(async () => {
    await removeContainers(d28, prefix);
    await removeImages(d28, prefix);
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await pullImage(d28, v1.ref);
  await runContainer(d28, { name: `${prefix}-web`, image: v1.ref, cmd: QUICK_STOP_CMD });
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });

  const port = await freePort();
  const controller = await startService([
    '--host', env.dockerHost, '--http-api-port', String(port),
    '--http-api-endpoints', 'check,update,agents', '--http-api-token', TOKEN,
    '--data-dir', mkdtempSync(join(tmpdir(), 'tw-img-controller-')),
    '--update-grace-period', '0', '--stop-timeout', '5s',
    `${prefix}-web`,
  ]);
  t.teardown(() => controller.stop('SIGKILL'));
  const token = await enrolToken(controller.url, TOKEN, 'img28');
  await dockerCli({ ...env, dockerHost: engine.host }, [
    'run', '-d', '--name', agentName, '--network', 'host',
    '-v', `${engine.socket}:/var/run/docker.sock`,
    '-e', `TIDEWATCH_ENROL_TOKEN=${token}`,
    image, 'agent', '--controller', `ws://127.0.0.1:${port}`, '--agent-name', 'img28',
  ]);
  const agent = await waitForAgent(controller.url, TOKEN, 'img28', 'online', 60_000);
  t.match(agent, { host: 'agent://img28', state: 'online' }, 'the image\'s agent is online');

  const checked = await call(`${controller.url}/v1/check`, { method: 'POST', token: TOKEN });
  const records = (checked.body as { containers: { name: string; host: string; update_available: boolean; error?: string }[] }).containers;
  t.same(records.map((r) => [r.host, r.name, r.update_available, r.error]), [['agent://img28', `${prefix}-web`, true, undefined]], 'the container on Docker 28.5 is checked through the agent');
  const updated = await call(`${controller.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(updated.body, { summary: { updated: 1, failed: 0 } }, updated.text);
  const info = await d28.getContainer(`${prefix}-web`).inspect();
  t.ok(info.State.Running, 'running after the update');
  t.match(info.Config.Image, repo, 'on its image reference');
  const imageId = (await d28.getImage(v2.ref).inspect()).Id;
  t.equal(info.Image, imageId, 'on v2, pulled by the Docker 28.5 engine through the agent');
  const logs = await dockerCli({ ...env, dockerHost: engine.host }, ['logs', agentName]);
  t.notOk(logs.includes(token), 'the agent never logs its enrol token');
});
