import t from 'tap';
import {
  containerIdFromCgroup,
  containerIdFromHostname,
  containerIdFromMountinfo,
} from '../../../plugins/docker/self-container.js';

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
