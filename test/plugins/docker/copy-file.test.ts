// The copy-file label's pure parts (docs/watchtower-fork.md#the-copy-file-label): the label's paths, which
// mounts make a path skipped, and the archive reader refusing what an untrusted container could put in the
// engine's answer (traversal, links, devices, a second entry, a size over the bound). The real engine's
// archives are tested through the binary in test/e2e/copy-file.test.ts.
import { Readable } from 'node:stream';
import t from 'tap';
import { pack, type Header } from 'tar-stream';
import type Docker from 'dockerode';
import { carryFiles, copyFilePaths, skipReason } from '../../../plugins/docker/replace/copy-file.js';
import type { EngineClient } from '../../../plugins/docker/engine/client.js';
import { EngineError } from '../../../plugins/docker/engine/transport.js';
import { destinationRefusal } from '../../../plugins/docker/copy-file-destination.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { packFiles, readOneFile } from '../../../plugins/docker/replace/copy-file-tar.js';

const LABEL = 'com.centurylinklabs.watchtower.copy-file';

async function tarOf(entries: { header: Partial<Header> & { name: string }; content?: Buffer }[]): Promise<Readable> {
  const packer = pack();
  for (const { header, content } of entries) packer.entry(header, content ?? Buffer.alloc(0));
  packer.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of packer) chunks.push(chunk as Buffer);
  return Readable.from([Buffer.concat(chunks)]);
}

t.test('the label: comma-separated absolute paths; anything else is refused naming the path', async (t) => {
  t.same(copyFilePaths({ [LABEL]: ' /etc/app/a.yml, /etc/b.conf ,,/etc/app/a.yml' }, 'c'), ['/etc/app/a.yml', '/etc/b.conf']);
  t.same(copyFilePaths({ 'tidewatch.copy-file': '/x' , [LABEL]: '/y' }, 'c'), ['/x'], "Tidewatch's own label wins");
  t.same(copyFilePaths({}, 'c'), []);
  for (const bad of ['etc/x', '/', '/etc/../x', '/etc/./x', '/etc//x', '/etc/x/']) {
    t.throws(() => copyFilePaths({ [LABEL]: bad }, 'c'), { code: 'TW_ERR_DOCKER_COPY_FILE' }, bad);
  }
  const many = Array.from({ length: 101 }, (_, i) => `/f${i}`).join(',');
  t.throws(() => copyFilePaths({ [LABEL]: many }, 'c'), /more than 100 paths/);
});

t.test('skipped: under a bind or named volume the replacement keeps, a tmpfs, a read-only mount or root', async (t) => {
  const info = (host: Partial<Docker.HostConfig>, mounts: Partial<Docker.ContainerInspectInfo['Mounts'][number]>[] = []) =>
    ({ HostConfig: host, Mounts: mounts }) as unknown as Docker.ContainerInspectInfo;
  t.equal(skipReason(info({ Binds: ['data:/data:rw'] }), '/data/conf'), 'under a bind or named volume the replacement keeps');
  t.equal(skipReason(info({ Mounts: [{ Type: 'bind', Target: '/etc/app', Source: '/srv' }] }), '/etc/app'), 'under a bind or named volume the replacement keeps');
  t.equal(skipReason(info({ Binds: ['data:/data'] }), '/database/conf'), undefined, 'a sibling path is not under the mount');
  t.equal(skipReason(info({ Tmpfs: { '/run': '' } }), '/run/x'), 'under a tmpfs');
  t.equal(skipReason(info({}, [{ Destination: '/ro', RW: false }]), '/ro/x'), 'under a read-only mount');
  t.equal(skipReason(info({}, [{ Destination: '/anon', RW: true }]), '/anon/x'), undefined, 'an anonymous volume starts empty: copied');
  t.equal(skipReason(info({ ReadonlyRootfs: true }), '/x'), 'the container has a read-only root filesystem');
});

t.test('the archive reader keeps owner and mode of one regular file and refuses everything else', async (t) => {
  const file = { name: 'conf.yml', type: 'file' as const, mode: 0o4640, uid: 1234, gid: 2345, mtime: new Date('2026-01-02T03:04:05Z') };
  const read = await readOneFile(await tarOf([{ header: file, content: Buffer.from('a: 1\n') }]), '/etc/app/conf.yml', 1024);
  t.same({ ...read, content: read.content.toString() }, {
    path: '/etc/app/conf.yml', content: 'a: 1\n', mode: 0o640, uid: 1234, gid: 2345, mtime: new Date('2026-01-02T03:04:05Z'),
  }, 'setuid dropped, the rest kept');

  const refused = async (entries: { header: Partial<Header> & { name: string }; content?: Buffer }[], why: RegExp, max = 1024) =>
    t.rejects(readOneFile(await tarOf(entries), '/etc/app/conf.yml', max), why, why.source);
  await refused([{ header: { name: 'conf.yml', type: 'symlink', linkname: '/etc/shadow' } }], /a symbolic link/);
  await refused([{ header: { name: 'conf.yml', type: 'link', linkname: 'x' } }], /a hard link/);
  await refused([{ header: { name: 'conf.yml', type: 'directory' } }], /a directory/);
  await refused([{ header: { name: 'conf.yml', type: 'character-device', devmajor: 1, devminor: 3 } }], /a device/);
  await refused([{ header: { name: 'conf.yml', type: 'block-device', devmajor: 8, devminor: 0 } }], /a device/);
  await refused([{ header: { name: 'conf.yml', type: 'fifo' } }], /a FIFO/);
  await refused([{ header: { name: '../../etc/cron.d/x', type: 'file' }, content: Buffer.from('x') }], /unsafe archive: an entry named/);
  await refused([{ header: { name: 'etc/app/conf.yml', type: 'file' }, content: Buffer.from('x') }], /unsafe archive: an entry named/);
  await refused([{ header: { name: 'conf.yml', type: 'file' }, content: Buffer.from('x') }, { header: { name: 'conf.yml', type: 'file' }, content: Buffer.from('y') }], /more than one entry/);
  await refused([{ header: { name: 'conf.yml', type: 'file' }, content: Buffer.alloc(1025) }], /1025 bytes, over the limit of 1024/);
  await t.rejects(readOneFile(await tarOf([]), '/etc/app/conf.yml', 1024), /empty archive/);
});

t.test('the archive written back names each file by its full path, owner and mode kept', async (t) => {
  const files = [
    { path: '/etc/app/conf.yml', content: Buffer.from('a'), mode: 0o640, uid: 1234, gid: 2345, mtime: new Date('2026-01-02T03:04:05Z') },
    { path: '/b', content: Buffer.from('bb'), mode: 0o600, uid: 0, gid: 0, mtime: undefined },
  ];
  const { extract } = await import('tar-stream');
  const parser = extract();
  Readable.from([await packFiles(files)]).pipe(parser);
  const seen = [];
  for await (const entry of parser) {
    const { name, mode, uid, gid, size, type } = entry.header;
    seen.push({ name, mode, uid, gid, size, type });
    entry.resume();
  }
  t.same(seen, [
    { name: 'etc/app/conf.yml', mode: 0o640, uid: 1234, gid: 2345, size: 1, type: 'file' },
    { name: 'b', mode: 0o600, uid: 0, gid: 0, size: 2, type: 'file' },
  ]);
});

t.test('carried: one archive with every file; a missing path skipped; past 16 MiB in all the update stops, nothing written', async (t) => {
  const MiB = 1024 * 1024;
  const written: Buffer[] = [];
  const docker = {
    getArchive: async (_id: string, path: string) => {
      if (path === '/missing') throw new EngineError(404, 'Could not find the file', { message: 'Could not find the file' });
      return tarOf([{ header: { name: path.slice(1), type: 'file', mode: 0o600 }, content: Buffer.alloc(MiB) }]);
    },
    putArchive: async (_id: string, path: string, tar: Buffer) => {
      t.equal(path, '/');
      written.push(tar);
    },
    // The new container: nothing of the paths exists in it yet, no mounts (copy-file-destination.ts).
    getContainer: (id: string) => ({ inspect: async () => ({ Id: id, HostConfig: {}, Mounts: [] }) }),
    statPath: async () => undefined,
  } as unknown as EngineClient;
  const container = (paths: string[]) =>
    ({ Id: 'old', Config: { Labels: { [LABEL]: paths.join(',') } }, HostConfig: {}, Mounts: [] }) as unknown as Docker.ContainerInspectInfo;
  const logger = memoryLogger();

  await carryFiles(docker, container(['/a', '/missing', '/b']), 'new', 'app', logger);
  t.equal(written.length, 1, 'one write');
  t.equal(written[0]!.length > 2 * MiB, true, 'holding both files');
  t.match(logger.lines.map((l) => l.text).join('\n'), /"path":"\/missing","why":"no such file in the container"/);

  written.length = 0;
  const seventeen = Array.from({ length: 17 }, (_, i) => `/f${i}`);
  await t.rejects(carryFiles(docker, container(seventeen), 'new', 'app', logger), {
    code: 'TW_ERR_DOCKER_COPY_FILE',
    message: /\/f16 refused: 1048576 bytes, over the limit of 0 \(the files before it leave 0 of the 16777216 bytes allowed in all\)/,
  });
  t.equal(written.length, 0, 'nothing written into the new container');
});

t.test('the destination is judged in the new container: a link on the path or a mount leaves the file out', async (t) => {
  const GO_SYMLINK = 2 ** 27;
  const GO_DIR = 2 ** 31;
  const tree: Record<string, { mode: number; linkTarget: string }> = {
    '/etc': { mode: GO_DIR + 0o755, linkTarget: '' },
    '/etc/app': { mode: GO_SYMLINK + 0o777, linkTarget: '/hostdir' },
    '/opt': { mode: GO_DIR + 0o755, linkTarget: '' },
    '/opt/conf': { mode: GO_SYMLINK + 0o777, linkTarget: '/hostdir/conf' },
    '/srv': { mode: GO_DIR + 0o755, linkTarget: '' },
  };
  const asked: string[] = [];
  const docker = {
    statPath: async (_id: string, path: string) => {
      asked.push(path);
      const entry = tree[path];
      return entry && { name: path.split('/').pop(), size: 0, mtime: '', ...entry };
    },
  } as unknown as EngineClient;
  const created = { Id: 'new', HostConfig: { Binds: ['/data:/data'], Tmpfs: { '/run': '' } }, Mounts: [{ Destination: '/vol', RW: true }] } as unknown as Docker.ContainerInspectInfo;
  t.equal(await destinationRefusal(docker, created, '/etc/app/conf.yml'), '/etc/app is a symbolic link in the new image');
  t.equal(await destinationRefusal(docker, created, '/opt/conf'), '/opt/conf is a symbolic link in the new image', 'the path itself a link');
  t.equal(await destinationRefusal(docker, created, '/data/x'), '/data/x is under the mount /data in the new container');
  t.equal(await destinationRefusal(docker, created, '/run/x'), '/run/x is under the mount /run in the new container');
  t.equal(await destinationRefusal(docker, created, '/vol/x'), '/vol/x is under the mount /vol in the new container', 'any mount, anonymous volumes too');
  asked.length = 0;
  t.equal(await destinationRefusal(docker, created, '/srv/a/b/c'), undefined, 'a directory the copy creates');
  t.same(asked, ['/srv', '/srv/a'], 'no stat below a path that does not exist');
});
