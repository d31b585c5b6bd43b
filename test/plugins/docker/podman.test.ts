// What the docker runtime reads differently on Podman's compatible API (docs/podman.md), from answers
// recorded from Podman 4.3's `podman system service`.
import t from 'tap';
import type Docker from 'dockerode';
import { stopParameters } from '../../../plugins/docker/replace/container-ops.js';
import { dockerState } from '../../../plugins/docker/discovery.js';
import { isConflict } from '../../../plugins/docker/engine/errors.js';
import type { EngineClient, ImageHandle } from '../../../plugins/docker/engine/client.js';
import { removeReplacedImages } from '../../../plugins/docker/image/cleanup.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { dockerUlimits, podmanCreateOptions, signalNumber, withoutPodmanEnv } from '../../../plugins/docker/replace/podman-create.js';
import { isPodmanVersion } from '../../../plugins/docker/engine/profile.js';
import { dockerProfile, podmanProfile } from '../../helpers/engine-profile.js';
import { recreateOptions, type ImageDefaults, type InspectedConfig } from '../../../plugins/docker/replace/recreate-config.js';

const ID = 'cfdea3d6bc9d3ee9933f9ede6450a111558cf260214b951525c664b1c1c934aa';

/** A running container created through the compatible API with -e A=1 -l x=y --restart unless-stopped --network none. */
function podmanInspect(config: Partial<InspectedConfig> = {}, hostConfig: object = {}): Docker.ContainerInspectInfo {
  return {
    Id: ID,
    Name: '/app',
    Image: 'sha256:c9224cf163de5b6ead81f13bcfe58d61b4042735d2b876cd593625ecab01e3f3',
    State: { Status: 'running', Running: true, Health: { Status: '', FailingStreak: 0, Log: null } },
    Config: {
      Hostname: 'cfdea3d6bc9d',
      User: '',
      Env: ['container=podman', 'IMGENV=1', 'A=1', 'PATH=/bin', 'TERM=xterm', 'HOME=/root', 'HOSTNAME=cfdea3d6bc9d'],
      Cmd: ['/bin/sh', '-c', 'sleep 3600'],
      Image: '127.0.0.1:5101/probe/app:latest',
      Volumes: null,
      WorkingDir: '/',
      Entrypoint: [],
      Labels: { 'img.label': 'x', x: 'y' },
      StopSignal: '15',
      StopTimeout: 0,
      ...config,
    },
    HostConfig: {
      NetworkMode: 'none',
      RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 },
      LogConfig: { Type: 'json-file', Config: null },
      IpcMode: 'shareable',
      PidMode: 'private',
      UTSMode: 'private',
      Runtime: 'oci',
      PidsLimit: 2048,
      Ulimits: [
        { Name: 'RLIMIT_NOFILE', Hard: 20000, Soft: 20000 },
        { Name: 'RLIMIT_NPROC', Hard: 32768, Soft: 32768 },
      ],
      ...hostConfig,
    },
    NetworkSettings: { Networks: {} },
  } as unknown as Docker.ContainerInspectInfo;
}

const image: ImageDefaults = { Env: ['PATH=/bin', 'IMGENV=1'], Cmd: ['/bin/sh', '-c', 'sleep 3600'], Entrypoint: null, Labels: { 'img.label': 'x' }, WorkingDir: '' };

t.test('the engine names itself in /version', async (t) => {
  t.ok(isPodmanVersion({ ApiVersion: '1.41', Components: [{ Name: 'Podman Engine' }, { Name: 'Conmon' }] }));
  t.notOk(isPodmanVersion({ ApiVersion: '1.43', Components: [{ Name: 'Engine' }, { Name: 'containerd' }, { Name: 'runc' }] }));
  t.notOk(isPodmanVersion({ ApiVersion: '1.43', Components: null }));
});

t.test("a replacement's options carry the user's settings, not Podman's", async (t) => {
  const create = recreateOptions(podmanInspect(), image, { image: '127.0.0.1:5101/probe/app:latest', profile: podmanProfile() }) as Docker.ContainerCreateOptions & {
    StopTimeout?: number;
  };
  t.same(create.Env, ['A=1'], "Podman's container=, TERM, HOME and HOSTNAME are added again by Podman itself");
  t.same(create.Labels, { x: 'y' });
  t.equal(create.WorkingDir, undefined, 'its "/" is no working directory of the user');
  t.equal(create.StopSignal, undefined, '"15" is the default SIGTERM');
  t.equal(create.StopTimeout, undefined, 'its 0 is no timeout of the user');
  t.equal(create.Hostname, undefined, 'a default hostname (its own short id) stays default, as on Docker');
  const named = recreateOptions(podmanInspect({ Hostname: 'box' }), image, { image: '127.0.0.1:5101/probe/app:latest', profile: podmanProfile() });
  t.equal(named.Hostname, 'box', 'a chosen hostname is kept: UTS mode "private" is the default');
  t.equal(create.HostConfig?.UTSMode, undefined);
  t.equal(create.HostConfig?.Runtime, undefined, '"oci" names no runtime');
  t.same(create.HostConfig?.Ulimits, [
    { Name: 'nofile', Hard: 20000, Soft: 20000 },
    { Name: 'nproc', Hard: 32768, Soft: 32768 },
  ], 'rlimits under the names a create takes');
  t.same(create.HostConfig?.RestartPolicy, { Name: 'unless-stopped', MaximumRetryCount: 0 });
  t.equal(create.HostConfig?.NetworkMode, 'none');
  t.same(create.NetworkingConfig, { EndpointsConfig: {} });

  const docker = recreateOptions(podmanInspect(), image, { image: 'x', profile: dockerProfile('1.41') });
  t.ok(docker.Env?.includes('container=podman'), 'on Docker\'s profile nothing of this applies');
});

t.test("the user's own values stay", async (t) => {
  const info = podmanInspect(
    { Env: ['container=podman', 'HOME=/srv', 'TERM=vt100', 'HOSTNAME=other', 'A=1'], WorkingDir: '/app', StopSignal: '3', StopTimeout: 30, User: '1000' },
    { UTSMode: 'host', Runtime: 'crun' },
  );
  const create = podmanCreateOptions(recreateOptions(info, image, { image: 'x', profile: dockerProfile('1.41') }), info, image) as Docker.ContainerCreateOptions & {
    StopTimeout?: number;
  };
  t.same(create.Env, ['HOME=/srv', 'TERM=vt100', 'HOSTNAME=other', 'A=1']);
  t.equal(create.WorkingDir, '/app');
  t.equal(create.StopSignal, '3', 'SIGQUIT, not the image default');
  t.equal(create.StopTimeout, 30);
  t.equal(create.HostConfig?.UTSMode, 'host');
  t.equal(create.HostConfig?.Runtime, 'crun');
  t.same(withoutPodmanEnv(['HOME=/root'], { User: 'app' } as InspectedConfig, image), ['HOME=/root'], "another user's HOME=/root was set by someone");
  t.same(
    withoutPodmanEnv(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], {} as InspectedConfig, { Env: [] }),
    [],
    "Podman's default PATH where the image has none",
  );
  t.same(
    withoutPodmanEnv(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], {} as InspectedConfig, { Env: ['PATH=/bin'] }),
    ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    'a PATH the user set over the image',
  );
});

t.test('signals by number or by name', async (t) => {
  t.equal(signalNumber('15'), 15);
  t.equal(signalNumber('SIGTERM'), 15);
  t.equal(signalNumber('term'), 15);
  t.equal(signalNumber('SIGRTMAX'), undefined, 'not a name this host knows');
  t.equal(signalNumber(undefined), undefined);
  t.same(dockerUlimits(undefined), undefined);
  t.same(dockerUlimits([{ Name: 'nofile', Soft: 1, Hard: 2 }]), [{ Name: 'nofile', Soft: 1, Hard: 2 }], "Docker's names unchanged");
});

t.test('StopTimeout 0 is unset on Podman, "kill at once" on Docker', async (t) => {
  const info = podmanInspect();
  t.equal(stopParameters(info, { stopTimeoutMs: 7000, zeroStopTimeoutIsUnset: true }).seconds, 7, "Podman: Tidewatch's --stop-timeout");
  t.equal(stopParameters(info, { stopTimeoutMs: 7000 }).seconds, 0, 'Docker: the container asked for 0');
  t.equal(stopParameters(podmanInspect({ StopTimeout: 10 }), { stopTimeoutMs: 7000, zeroStopTimeoutIsUnset: true }).seconds, 10, 'its own timeout wins');
});

t.test("the list's states and errors in Docker's words", async (t) => {
  t.equal(dockerState('stopped'), 'exited');
  t.equal(dockerState('running'), 'running');
  t.equal(dockerState('created'), 'created');
  const inUse = Object.assign(new Error('(HTTP code 500) server error - container create: the container name "app" is already in use by cfdea3d6bc9d'), {
    statusCode: 500,
    json: { message: 'container create: creating container storage: the container name "app" is already in use by cfdea3d6bc9d. You have to remove that container to be able to reuse that name: that name is already in use' },
  });
  t.ok(isConflict(inUse), "Podman's 500 for a name in use is a conflict");
  t.notOk(isConflict(Object.assign(new Error('boom'), { statusCode: 500, json: { message: 'boom' } })));
  t.ok(isConflict(Object.assign(new Error('conflict'), { statusCode: 409 })));
});

/** An engine that records image removals; `images` maps an id to its tags. */
function fakeEngine(images: Map<string, string[]>, containers: { ImageID: string }[] = []) {
  const removals: { name: string; force: boolean | undefined }[] = [];
  const notFound = () => Object.assign(new Error('no such image'), { statusCode: 404 });
  const docker = {
    listContainers: async () => containers,
    getImage: (name: string) => ({
      inspect: async () => {
        const tags = images.get(name);
        if (!tags) throw notFound();
        return { Id: name, RepoTags: [...tags] };
      },
      remove: async (options: { force?: boolean }) => {
        removals.push({ name, force: options.force });
        for (const [id, tags] of images) {
          if (id === name) {
            if (tags.length > 1 && !options.force) throw Object.assign(new Error('more than one tag'), { statusCode: 500 });
            images.delete(id);
            return;
          }
          if (tags.includes(name)) {
            tags.splice(tags.indexOf(name), 1);
            if (tags.length === 0) images.delete(id);
            return;
          }
        }
        throw notFound();
      },
    }),
  } as unknown as EngineClient;
  return { docker, removals };
}

t.test('--cleanup never forces a removal on Podman, where force also removes the containers of the image', async (t) => {
  const images = new Map([['sha256:old', ['reg/app:a', 'reg/app:b']]]);
  const { docker, removals } = fakeEngine(images);
  const cleaned = await removeReplacedImages(docker, [{ imageId: 'sha256:old', imageName: 'reg/app:latest' }], memoryLogger(), podmanProfile());
  t.same(cleaned, [{ image_id: 'sha256:old', image_name: 'reg/app:latest' }]);
  t.same(removals, [
    { name: 'reg/app:a', force: false },
    { name: 'reg/app:b', force: false },
    { name: 'sha256:old', force: false },
  ], 'tag by tag, then the id, never forced');
  t.equal(images.size, 0);

  const onDocker = fakeEngine(new Map([['sha256:old', ['reg/app:a', 'reg/app:b']]]));
  await removeReplacedImages(onDocker.docker, [{ imageId: 'sha256:old', imageName: 'reg/app:latest' }], memoryLogger(), dockerProfile('1.43'));
  t.same(onDocker.removals, [{ name: 'sha256:old', force: true }], 'Docker: one forced removal by id, as before');

  // An image a container took meanwhile: the unforced removal is refused, the container keeps it.
  const inUse = fakeEngine(new Map([['sha256:old', ['reg/app:a']]]));
  const refuse = inUse.docker.getImage('reg/app:a');
  refuse.remove = async () => {
    throw Object.assign(new Error('image is in use by a container'), { statusCode: 409 });
  };
  const getImage = inUse.docker.getImage.bind(inUse.docker);
  inUse.docker.getImage = (name: string): ImageHandle => (name === 'reg/app:a' ? refuse : getImage(name));
  const kept = await removeReplacedImages(inUse.docker, [{ imageId: 'sha256:old', imageName: 'reg/app:latest' }], memoryLogger(), podmanProfile());
  t.same(kept, [], 'kept, reported as not removed');
});
