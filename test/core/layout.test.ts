// Small files with one concern (CONTRIBUTING.md#layout): no folder in plugins/ holds more than 25 files (a
// catalog of one module per service aside), and no source file of the product is over 450 lines.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_FILES = 25;
const MAX_LINES = 450;
/** Catalogs: one module per notification service, each small and alike (docs/notifications.md#adding-a-service). */
const CATALOGS = new Set(['plugins/notify/services']);

function folders(dir: string): string[] {
  const subfolders = readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory());
  return [dir, ...subfolders.flatMap((e) => folders(join(dir, e.name)))];
}

t.test(`no folder in plugins/ holds more than ${MAX_FILES} files`, async (t) => {
  const counts = folders('plugins').map((dir) => ({ dir, files: readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isFile()).length }));
  t.ok(counts.length > 15, 'the folders were read');
  t.same(counts.filter(({ dir, files }) => files > MAX_FILES && !CATALOGS.has(dir)), []);
});

t.test(`no source file over ${MAX_LINES} lines`, async (t) => {
  const files = ['core', 'contracts', 'plugins', 'server'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name))
      .map((e) => relative(ROOT, join(e.parentPath, e.name))),
  );
  t.ok(files.length > 200, 'the sources were read');
  const long = files
    .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES);
  t.same(long, []);
});
