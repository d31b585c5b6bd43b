// What a container (or the engine answering for it) controls about a volume snapshot (docs/security.md#threat-model,
// docs/snapshots.md): the mounts it has, the names of its volumes, the content of the archive. A bind mount inside
// a snapshotted volume would let a restore's recursive removal reach a host directory: refused before anything is
// stopped. A volume name is a file name under the data directory only when it is Docker's own form. The archive's
// headers are counted, never trusted to size a buffer, and never extracted on Tidewatch's side.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import t from 'tap';
import { snapshotMounts } from '../../plugins/docker/replace/snapshot/volumes.js';
import { TarByteCounter } from '../../plugins/docker/replace/snapshot/tar-count.js';
import { openStateStore } from '../../plugins/state/store.js';
import { SnapshotService } from '../../plugins/state/snapshot-service.js';

const inspect = (mounts: object[]) => ({ Mounts: mounts }) as unknown as Docker.ContainerInspectInfo;

t.test('a bind mount (or any mount) inside a snapshotted volume is refused', async (t) => {
  const volume = { Type: 'volume', Name: 'data', Destination: '/data', RW: true };
  t.match(snapshotMounts(inspect([volume, { Type: 'bind', Source: '/etc', Destination: '/data/etc', RW: true }])), { refused: /\/data\/etc is inside volume data/ });
  t.match(snapshotMounts(inspect([volume, { Type: 'tmpfs', Destination: '/data/cache', RW: true }])), { refused: /inside volume data/ });
  t.same(snapshotMounts(inspect([volume, { Type: 'bind', Source: '/srv', Destination: '/database', RW: true }])), [{ name: 'data', destination: '/data' }], 'a sibling path is not inside');
  t.same(snapshotMounts(inspect([{ ...volume, RW: false }, { Type: 'bind', Source: '/x', Destination: '/x', RW: true }])), [], 'read-only volumes and binds are not snapshotted');
});

t.test('volume names that are not Docker-form names never name a file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-snap-sec-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await openStateStore({ dir });
  t.teardown(() => store.close());
  const snaps = new SnapshotService(store, { all: false, retention: 3, maxBytes: 1 << 20, available: true }, store.logger);
  const writer = await snaps.begin({ container: 'x', runId: 'r', imageId: 'i' });
  for (const name of ['../../etc/passwd', '/abs', 'a/b', '.hidden', '', 'x'.repeat(300)]) {
    await t.rejects(writer.addVolume(name, '/d', Readable.from([Buffer.from('t')]), () => 1), { code: 'TW_ERR_SNAPSHOT_VOLUME' }, JSON.stringify(name.slice(0, 20)));
  }
  await writer.abort();
  t.same(await readdir(join(dir, 'snapshots')), [], 'nothing written anywhere');
  t.throws(() => snaps.read('../../state', 'vol'), { code: 'TW_ERR_SNAPSHOT_MISSING' }, 'an id not in the index reads nothing');
});

t.test("an archive header's size is counted, never used to allocate", async (t) => {
  const header = Buffer.alloc(512);
  header.write('data/huge', 0);
  header[156] = '0'.charCodeAt(0);
  header.write('77777777777\0', 124, 'latin1'); // 8 GiB claimed
  const counter = new TarByteCounter();
  const out: Buffer[] = [];
  for await (const chunk of Readable.from([header, Buffer.alloc(4096)]).pipe(counter)) out.push(chunk as Buffer);
  t.equal(counter.regularBytes, 0o77777777777, 'counted as claimed');
  t.equal(Buffer.concat(out).length, 512 + 4096, 'the bytes passed through, nothing buffered');
});
