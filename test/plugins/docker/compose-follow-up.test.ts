// compose-follow-up.ts with real files: after an `updated` tag update of a Compose-managed container the
// file is rewritten atomically (mode kept, no temporary file left) with --compose-rewrite, and otherwise
// the result's note and the log name the file and the service (docs/compose.md#tag-updates-and-compose).
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { ApplyResult, Staleness, UpdatePlan } from '../../../core/index.js';
import { followCompose } from '../../../plugins/docker/compose/follow-up.js';
import { composeOrigin, pendingNote } from '../../../plugins/docker/compose/note.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { fakeTarget } from '../../helpers/targets.js';
import { asStaleness } from '../../helpers/staleness.js';

const dir = mkdtempSync(join(tmpdir(), 'tw-compose-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const yaml = `services:
  # the front
  web:
    image: nginx:1.25.3-alpine
  db:
    image: postgres:\${PG:-16.4}
`;
const labels = (service: string) => ({
  'com.docker.compose.project': 'app',
  'com.docker.compose.service': service,
  'com.docker.compose.project.config_files': 'compose.yml',
  'com.docker.compose.project.working_dir': dir,
});
const staleness: Staleness = asStaleness({
  source: 'registry',
  stale: true,
  currentTag: '1.25.3-alpine',
  latestTag: '1.25.4-alpine',
  updateKind: 'patch',
  latestDigest: `sha256:${'b'.repeat(64)}`,
});
const web = fakeTarget('app-web-1', { runtime: 'docker', image: 'nginx:1.25.3-alpine', labels: labels('web') });
const plan = (target = web, s = staleness): UpdatePlan => ({ target, staleness: s, restartOnly: false, dependents: [] });
const updated = (target = web): ApplyResult => ({ target, outcome: 'updated', oldImageId: 'sha256:old', newImageId: 'sha256:new' });
const file = join(dir, 'compose.yml');

t.test('the labels name the files (relative ones from the working directory) and the service', async (t) => {
  t.same(composeOrigin(web.labels), { service: 'web', files: [file] });
  t.equal(composeOrigin({}), undefined);
  t.match(pendingNote(web, staleness, false), /Compose file .*compose\.yml \(service web\) names nginx:1\.25\.3-alpine.*--compose-rewrite/);
  t.equal(pendingNote(web, { ...staleness, latestTag: undefined }, false), undefined, 'a digest update needs no note');
  t.equal(pendingNote(fakeTarget('plain'), staleness, false), undefined, 'not Compose-managed');
});

t.test('without --compose-rewrite the note and the log name the file and the service; nothing is written', async (t) => {
  writeFileSync(file, yaml);
  const log = memoryLogger();
  const result = await followCompose(plan(), updated(), false, log);
  t.match(result.note, `Compose file ${file} (service web) still names nginx:1.25.3-alpine`);
  t.match(result.note, 'change it to nginx:1.25.4-alpine');
  t.equal(readFileSync(file, 'utf8'), yaml);
  t.ok(log.lines.some((l) => l.level === 'warn' && l.obj.service === 'web' && String(l.msg).includes(file)));
});

t.test('with --compose-rewrite the file is rewritten atomically, mode kept', async (t) => {
  writeFileSync(file, yaml);
  chmodSync(file, 0o640);
  const log = memoryLogger();
  const result = await followCompose(plan(), updated(), true, log);
  t.equal(readFileSync(file, 'utf8'), yaml.replace('nginx:1.25.3-alpine', 'nginx:1.25.4-alpine'));
  t.equal(statSync(file).mode & 0o777, 0o640);
  t.same(readdirSync(dir), ['compose.yml'], 'no temporary file left');
  t.match(result.note, /rewritten: image nginx:1\.25\.3-alpine → nginx:1\.25\.4-alpine/);
  t.ok(log.lines.some((l) => l.level === 'info' && l.obj.file === file));

  // Run again: the file no longer names the old reference, so it is left alone and the note says why.
  const again = await followCompose(plan(), updated(), true, memoryLogger());
  t.match(again.note, 'names nginx:1.25.4-alpine, not the old reference');
});

t.test('a symlinked file is rewritten where it lives; the link stays a link', async (t) => {
  const real = join(dir, 'real');
  mkdirSync(real, { recursive: true });
  writeFileSync(join(real, 'stack.yml'), yaml);
  const linked = join(dir, 'linked.yml');
  symlinkSync(join(real, 'stack.yml'), linked);
  t.teardown(() => rmSync(linked, { force: true }));
  const viaLink = fakeTarget('app-web-1', { runtime: 'docker', image: 'nginx:1.25.3-alpine', labels: { ...labels('web'), 'com.docker.compose.project.config_files': linked } });
  const result = await followCompose(plan(viaLink), updated(viaLink), true, memoryLogger());
  t.match(result.note, 'rewritten');
  t.ok(lstatSync(linked).isSymbolicLink(), 'still a link');
  t.equal(readFileSync(join(real, 'stack.yml'), 'utf8'), yaml.replace('nginx:1.25.3-alpine', 'nginx:1.25.4-alpine'));
  t.same(readdirSync(real), ['stack.yml'], 'no temporary file left');
});

t.test('an interpolated image is not rewritten, and the note says why', async (t) => {
  writeFileSync(file, yaml);
  const db = fakeTarget('app-db-1', { runtime: 'docker', image: 'postgres:16.4', labels: labels('db') });
  const result = await followCompose(plan(db, asStaleness({ ...staleness, currentTag: '16.4', latestTag: '16.5' })), updated(db), true, memoryLogger());
  t.match(result.note, 'sets the image by variable (postgres:${PG:-16.4})');
  t.equal(readFileSync(file, 'utf8'), yaml);
});

t.test('an unreadable file is reported, not fatal', async (t) => {
  const lost = fakeTarget('x', { runtime: 'docker', image: 'nginx:1.25.3-alpine', labels: { ...labels('web'), 'com.docker.compose.project.config_files': '/nonexistent/compose.yml' } });
  const result = await followCompose(plan(lost), updated(lost), true, memoryLogger());
  t.equal(result.outcome, 'updated');
  t.match(result.note, 'cannot read /nonexistent/compose.yml');
});

t.test('nothing happens for digest updates, failures and restarts', async (t) => {
  writeFileSync(file, yaml);
  const digest = await followCompose(plan(web, { ...staleness, latestTag: undefined }), updated(), true, memoryLogger());
  t.equal(digest.note, undefined);
  const failed = await followCompose(plan(), { target: web, outcome: 'failed', error: 'x' }, true, memoryLogger());
  t.equal(failed.note, undefined);
  t.equal(readFileSync(file, 'utf8'), yaml);
});

// A rollback on demand of the tag update (docs/compose.md#rollback-and-compose): the state plugin's answer
// carries the previous image (`targetImageId`), and the runtime reports the reference it went back to.
t.test('a rollback rewrites the file back only while it names what the update wrote', async (t) => {
  const onNew = fakeTarget('app-web-1', { runtime: 'docker', image: 'nginx:1.25.4-alpine', labels: labels('web') });
  const back: Staleness = { source: 'registry', stale: true, targetImageId: 'sha256:old', targetImage: 'nginx:1.25.3-alpine' };
  const rolledBack = (): ApplyResult => ({ ...updated(onNew), newImage: 'nginx:1.25.3-alpine' });
  const updatedFile = yaml.replace('nginx:1.25.3-alpine', 'nginx:1.25.4-alpine');

  writeFileSync(file, updatedFile);
  let log = memoryLogger();
  let result = await followCompose(plan(onNew, back), rolledBack(), true, log);
  t.equal(readFileSync(file, 'utf8'), yaml, 'rewritten back, every other byte kept');
  t.match(result.note, `Compose file ${file} (service web) rewritten back after the rollback: image nginx:1.25.4-alpine → nginx:1.25.3-alpine.`);
  t.ok(log.lines.some((l) => l.level === 'info' && l.obj.file === file));

  // A person edited the file since the update: theirs, left alone, and said.
  const edited = yaml.replace('nginx:1.25.3-alpine', 'nginx:1.26.0-alpine');
  writeFileSync(file, edited);
  log = memoryLogger();
  result = await followCompose(plan(onNew, back), rolledBack(), true, log);
  t.equal(readFileSync(file, 'utf8'), edited, 'an edited file is not overwritten');
  t.match(result.note, 'was not rewritten back after the rollback: it names nginx:1.26.0-alpine, not nginx:1.25.4-alpine as the update left it (edited since');
  t.ok(log.lines.some((l) => l.level === 'warn' && String(l.msg).includes('was not rewritten back')));

  // Already on the old reference: nothing to undo, nothing to say.
  writeFileSync(file, yaml);
  t.equal((await followCompose(plan(onNew, back), rolledBack(), true, memoryLogger())).note, undefined);

  // Without --compose-rewrite nothing is written, and a file naming the version rolled back from is said.
  writeFileSync(file, updatedFile);
  result = await followCompose(plan(onNew, back), rolledBack(), false, memoryLogger());
  t.equal(readFileSync(file, 'utf8'), updatedFile);
  t.match(result.note, `still names nginx:1.25.4-alpine`);
  t.match(result.note, 'change it to nginx:1.25.3-alpine');

  // A digest rollback keeps its reference (no newImage): the file has nothing to follow.
  t.equal((await followCompose(plan(onNew, back), updated(onNew), true, memoryLogger())).note, undefined);
  t.equal(readFileSync(file, 'utf8'), updatedFile);
});
