import t from 'tap';
import {
  containerIdFromCgroup,
  containerIdFromHostname,
  containerIdFromMountinfo,
} from '../../../plugins/docker/self/container.js';

const ID = '3f1e2d4c5b6a79880123456789abcdef0123456789abcdef0123456789abcdef';
const OTHER = 'aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffff';

t.test('mountinfo: only the bind mounts of our own /etc files count', async (t) => {
  const inside = [
    '600 500 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/x',
    `612 600 8:1 /var/lib/docker/containers/${ID}/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/sda1 rw`,
    `613 600 8:1 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw`,
  ].join('\n');
  t.equal(containerIdFromMountinfo(inside), ID);
  // On a host running containers, their shm mounts show up in the host's own mountinfo.
  const host = `700 30 0:60 / /var/lib/docker/containers/${OTHER}/mounts/shm rw - tmpfs shm rw`;
  t.equal(containerIdFromMountinfo(host), undefined);
});

t.test("mountinfo: Podman's files under <runroot>/overlay-containers/<id>/userdata (docs/podman.md)", async (t) => {
  // As a rootful Podman 4.3 container sees them.
  const inside = [
    `171 165 254:0 /var/run/containers/storage/overlay-containers/${ID}/userdata/hosts /etc/hosts rw,relatime - ext4 /dev/vda rw`,
    `176 165 254:0 /var/run/containers/storage/overlay-containers/${ID}/userdata/hostname /etc/hostname rw,relatime - ext4 /dev/vda rw`,
  ].join('\n');
  t.equal(containerIdFromMountinfo(inside), ID);
});

t.test("Podman's cgroups: cgroupfs libpod-<id>, systemd libpod-<id>.scope, never its conmon's", async (t) => {
  t.equal(containerIdFromCgroup(`9:name=systemd:/libpod_parent/libpod-${ID}\n8:pids:/libpod_parent/libpod-${ID}`), ID);
  t.equal(containerIdFromCgroup(`0::/machine.slice/libpod-${ID}.scope/container`), ID);
  t.equal(containerIdFromCgroup(`0::/machine.slice/libpod-conmon-${ID}.scope`), undefined);
});

t.test('cgroup v1 and systemd scopes', async (t) => {
  t.equal(containerIdFromCgroup(`12:memory:/docker/${ID}\n0::/`), ID);
  t.equal(containerIdFromCgroup(`0::/system.slice/docker-${ID}.scope`), ID);
  t.equal(containerIdFromCgroup('0::/\n4:memory:/process_api/5e7b'), undefined);
});

t.test('the hostname counts only when it is the short id of exactly one listed container', async (t) => {
  t.equal(containerIdFromHostname([ID, OTHER], ID.slice(0, 12)), ID);
  t.equal(containerIdFromHostname([OTHER], ID.slice(0, 12)), undefined);
  t.equal(containerIdFromHostname([ID], 'my-laptop'), undefined);
});
