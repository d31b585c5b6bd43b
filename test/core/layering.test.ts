// The layers (CONTRIBUTING.md#layout, docs/plugins.md#contracts): the core imports nothing above it; a plugin
// imports the core's public surface (or its declaration part alone, core/declarations.ts), the contracts entry,
// the shared helpers and its own folder, never another plugin; the shared helpers import only the core's
// surface; a plugin's contract file holds no implementation of its plugin. Read from the sources' import
// specifiers, so a new file is checked without a list.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every relative module a file imports or re-exports (static and dynamic), as a path from the repository root. */
function relativeImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1] as string);
  return specifiers.map((s) => relative(ROOT, resolve(dirname(join(ROOT, file)), s)).replace(/\.js$/, '.ts'));
}

function offenders(files: string[], allowed: (file: string, target: string) => boolean): string[] {
  return files.flatMap((file) => relativeImports(file).filter((target) => !allowed(file, target)).map((target) => `${file} → ${target}`));
}

t.test('the core imports nothing from plugins/, server/ or contracts/', async (t) => {
  const files = sources('core');
  t.ok(files.length > 20);
  t.same(offenders(files, (_, target) => target.startsWith('core/')), []);
});

t.test('a plugin imports the core surface (or its declaration part), the contracts entry, the shared helpers and its own folder', async (t) => {
  const files = sources('plugins');
  t.ok(files.length > 100);
  const pluginOf = (path: string) => path.split('/')[1];
  const allowed = (file: string, target: string) =>
    target === 'core/index.ts' ||
    target === 'core/declarations.ts' ||
    target === 'contracts/index.ts' ||
    /^contracts\/shared\/[a-z-]+\.ts$/.test(target) ||
    (target.startsWith('plugins/') && pluginOf(target) === pluginOf(file));
  t.same(offenders(files, allowed), []);
});

t.test('the shared helpers import only the core surface and each other', async (t) => {
  const files = sources('contracts/shared');
  t.ok(files.length > 0);
  t.same(offenders(files, (_, target) => target === 'core/index.ts' || target.startsWith('contracts/shared/')), []);
});

t.test("a plugin's contract file imports only the core surface and the contracts entry (no implementation)", async (t) => {
  const files = sources('plugins').filter((f) => /^plugins\/[a-z-]+\/contracts\.ts$/.test(f) || f === 'plugins/notify/service.ts');
  t.ok(files.length >= 7, files.join(', '));
  t.same(offenders(files, (_, target) => target === 'core/index.ts' || target === 'contracts/index.ts'), []);
});
