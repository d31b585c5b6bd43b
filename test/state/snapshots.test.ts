// The snapshot files and index (plugins/state/snapshot-*.ts, docs/snapshots.md): a snapshot is indexed only once
// its files are on disk with their sha256; retention keeps the newest N per container; the size bound drops a
// snapshot that passes it and leaves nothing behind; pages run newest first; a partial snapshot is swept at start;
// a file that changed on disk fails its read; the journal survives a reopen; sizes parse as documented.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { openStateStore } from '../../plugins/state/store.js';
import { SnapshotService } from '../../plugins/state/snapshot-service.js';
import { parseSize } from '../../plugins/state/snapshot-options.js';
import { TarByteCounter, headerSize } from '../../plugins/docker/replace/snapshot/tar-count.js';
import { emptyFileTar } from '../../plugins/docker/replace/snapshot/restore.js';

async function service(t: Test, settings: Partial<{ retention: number; maxBytes: number }> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'tw-snap-unit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await openStateStore({ dir });
  t.teardown(() => store.close());
  const snaps = new SnapshotService(store, { all: false, retention: settings.retention ?? 3, maxBytes: settings.maxBytes ?? 1024 * 1024, available: true }, store.logger);
  return { dir, store, snaps };
}

async function take(snaps: SnapshotService, container: string, content: Buffer, imageId = 'sha256:old') {
  const writer = await snaps.begin({ container, runId: 'run', imageId });
  try {
    await writer.addVolume('vol', '/data', Readable.from([content]), () => content.length);
    return await writer.commit();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

t.test('a snapshot is indexed with its sha256 and read back intact', async (t) => {
  const { snaps } = await service(t);
  const content = Buffer.from('x'.repeat(5000));
  const record = await take(snaps, 'db', content);
  t.equal(record.volumes[0]?.sha256, createHash('sha256').update(content).digest('hex'));
  t.equal(record.volumes[0]?.bytes, 5000);
  t.same(snaps.get(record.id), record, 'in the index');
  t.same(await readAll(snaps.read(record.id, 'vol')), content, 'read back');
  t.equal(snaps.latestFor('db', undefined, 'sha256:old')?.id, record.id);
  t.equal(snaps.latestFor('db', undefined, 'sha256:other'), undefined, 'by the image it ran');
});

t.test('retention keeps the newest N per container, files and rows', async (t) => {
  const { dir, snaps } = await service(t, { retention: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await take(snaps, 'db', Buffer.from(`v${i}`))).id);
  const other = await take(snaps, 'web', Buffer.from('w'));
  const kept = snaps.page({ container: 'db', limit: 10 }).entries.map((s) => s.id);
  t.same(kept, ids.slice(2), 'the two newest, oldest first in the page');
  t.same((await readdir(join(dir, 'snapshots'))).sort(), [...ids.slice(2), other.id].sort(), 'the files of the others are gone');
  t.equal(snaps.page({ container: 'web', limit: 10 }).entries.length, 1, "another container's are its own");
});

t.test('past the size bound the snapshot is dropped and nothing is left', async (t) => {
  const { dir, snaps } = await service(t, { maxBytes: 1000 });
  await t.rejects(take(snaps, 'db', Buffer.alloc(1001)), { code: 'TW_ERR_SNAPSHOT_TOO_LARGE' });
  t.same(await readdir(join(dir, 'snapshots')), [], 'no partial directory');
  t.equal(snaps.page({ limit: 10 }).entries.length, 0, 'nothing indexed');
  t.ok(await take(snaps, 'db', Buffer.alloc(1000)), 'at the bound is fine');
});

t.test('the bound counts every volume of the snapshot together', async (t) => {
  const { snaps } = await service(t, { maxBytes: 1000 });
  const writer = await snaps.begin({ container: 'db', runId: 'r', imageId: 'i' });
  await writer.addVolume('a', '/a', Readable.from([Buffer.alloc(600)]), () => 600);
  await t.rejects(writer.addVolume('b', '/b', Readable.from([Buffer.alloc(600)]), () => 600), { code: 'TW_ERR_SNAPSHOT_TOO_LARGE' });
  await writer.abort();
});

t.test('pages run newest first with a cursor, filtered by container', async (t) => {
  const { snaps } = await service(t, { retention: 10 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await take(snaps, 'db', Buffer.from(`${i}`))).id);
  await take(snaps, 'web', Buffer.from('w'));
  const first = snaps.page({ container: 'db', limit: 2 });
  t.same(first.entries.map((s) => s.id), ids.slice(3), 'the newest two');
  t.ok(first.next);
  const second = snaps.page({ container: 'db', limit: 2, cursor: first.next as string });
  t.same(second.entries.map((s) => s.id), ids.slice(1, 3));
  const third = snaps.page({ container: 'db', limit: 2, cursor: second.next as string });
  t.same(third.entries.map((s) => s.id), ids.slice(0, 1));
  t.equal(third.next, undefined, 'the last page has no next');
  t.throws(() => snaps.page({ limit: 2, cursor: '!!' }), { code: 'TW_ERR_STATE_CURSOR' });
});

t.test('a changed snapshot file fails its read; a bad volume name is refused', async (t) => {
  const { dir, snaps } = await service(t);
  const record = await take(snaps, 'db', Buffer.from('original'));
  await writeFile(join(dir, 'snapshots', record.id, 'vol.tar'), 'tampered');
  await t.rejects(readAll(snaps.read(record.id, 'vol')), { code: 'TW_ERR_SNAPSHOT_CHECKSUM' });
  const writer = await snaps.begin({ container: 'db', runId: 'r', imageId: 'i' });
  await t.rejects(writer.addVolume('../etc', '/x', Readable.from([Buffer.from('x')]), () => 1), { code: 'TW_ERR_SNAPSHOT_VOLUME' });
  await writer.abort();
});

t.test('a partial snapshot is swept; the journal survives a reopen', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tw-snap-unit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const settings = { all: false, retention: 3, maxBytes: 1 << 20, available: true };
  let store = await openStateStore({ dir });
  let snaps = new SnapshotService(store, settings, store.logger);
  const kept = await take(snaps, 'db', Buffer.from('k'));
  const writer = await snaps.begin({ container: 'db', runId: 'r', imageId: 'i' });
  await writer.addVolume('vol', '/data', Readable.from([Buffer.from('half')]), () => 4);
  await snaps.setJournal('c1', { containerId: 'c1', snapshotId: kept.id, phase: 'restore' });
  await store.close(); // "killed" before commit
  store = await openStateStore({ dir });
  t.teardown(() => store.close());
  snaps = new SnapshotService(store, settings, store.logger);
  t.same(await snaps.files?.sweep(), [`${writer.id}.partial`], 'the partial snapshot is removed');
  t.same(await readdir(join(dir, 'snapshots')), [kept.id]);
  t.same(snaps.journal('c1'), { containerId: 'c1', snapshotId: kept.id, phase: 'restore' });
  await snaps.setJournal('c1', undefined);
  t.same(snaps.journals(), []);
});

t.test('without a data directory nothing is kept', async (t) => {
  const store = await openStateStore({});
  const snaps = new SnapshotService(store, { all: true, retention: 3, maxBytes: 1, available: false }, store.logger);
  await t.rejects(snaps.begin({ container: 'db', runId: 'r', imageId: 'i' }), { code: 'TW_ERR_SNAPSHOT_NO_DATA_DIR' });
  t.same(snaps.page({ limit: 5 }), { entries: [] });
  t.equal(snaps.latestFor('db', undefined), undefined);
});

t.test('sizes', async (t) => {
  t.equal(parseSize('1GiB'), 1024 ** 3);
  t.equal(parseSize('500MiB'), 500 * 1024 ** 2);
  t.equal(parseSize('2GB'), 2e9);
  t.equal(parseSize('1073741824'), 1073741824);
  t.equal(parseSize(' 1.5 KiB '), 1536);
  for (const bad of ['', '0', '-1', 'GiB', '1 parsec', '1e9']) t.throws(() => parseSize(bad), { code: 'TW_ERR_INVALID_VALUE' }, bad);
});

t.test('the tar byte counter sums regular files only, across chunk boundaries', async (t) => {
  const { pack } = await import('tar-stream');
  const p = pack();
  p.entry({ name: 'data/', type: 'directory' });
  p.entry({ name: 'data/a', size: 1000 }, Buffer.alloc(1000, 1));
  p.entry({ name: 'data/l', type: 'symlink', linkname: 'a' });
  p.entry({ name: 'data/b', size: 3 }, Buffer.from('abc'));
  p.entry({ name: 'data/empty', size: 0 }, Buffer.alloc(0));
  p.finalize();
  const tar = await readAll(p);
  for (const chunkSize of [1, 7, 512, 100_000]) {
    const counter = new TarByteCounter();
    const chunks: Buffer[] = [];
    for (let i = 0; i < tar.length; i += chunkSize) chunks.push(tar.subarray(i, i + chunkSize));
    const out = await readAll(Readable.from(chunks).pipe(counter));
    t.equal(counter.regularBytes, 1003, `chunks of ${chunkSize}`);
    t.same(out, tar, 'passed through unchanged');
  }
  const big = Buffer.alloc(512);
  big[124] = 0x80;
  big[135] = 2;
  t.equal(headerSize(big), 2, 'base-256 sizes');
});

t.test('the emptying tar is one empty regular file with a valid checksum', async (t) => {
  const { extract } = await import('tar-stream');
  const parser = extract();
  Readable.from([emptyFileTar('data')]).pipe(parser);
  const seen: { name: string; type: string | null | undefined; size: number | undefined }[] = [];
  for await (const entry of parser) {
    seen.push({ name: entry.header.name, type: entry.header.type, size: entry.header.size });
    entry.resume();
  }
  t.same(seen, [{ name: 'data', type: 'file', size: 0 }]);
});
