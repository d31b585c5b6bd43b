// The generated reference is current (npm run docs:reference): docs/options.md from the option declarations,
// docs/labels.md from the label table, the endpoint names in docs/http-api.md and docs/interface.md. And the
// label table is the code's: every label key a plugin or the core reads is a row, every row is read.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { ENDPOINTS } from '../../plugins/http-api/option-parsers.js';
import { LABELS } from '../../server/reference/labels.js';
import { generatedPages } from '../../server/reference/render.js';
import { REPO_ROOT } from '../helpers/service.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

t.test('every generated page is what npm run docs:reference writes', async (t) => {
  for (const [path, text] of Object.entries(generatedPages(read))) {
    t.ok(read(path) === text, `${path} is current (run npm run docs:reference and commit it)`);
  }
});

t.test('the endpoint names include every name the option accepts', async (t) => {
  for (const page of ['docs/http-api.md', 'docs/interface.md']) {
    for (const name of ['approvals', 'audit', 'hooks', 'rollback', ...ENDPOINTS]) t.match(read(page), `\`${name}\``, `${page} names ${name}`);
  }
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'assets' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

t.test('the label table and the code read the same keys', async (t) => {
  const read = new Map<string, string>();
  const templates = new Set<string>();
  for (const file of [...sources(join(REPO_ROOT, 'core')), ...sources(join(REPO_ROOT, 'plugins'))]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b(?:readLabel|targetLabel|labelOrGlobal|labelOf)\([^,()]+(?:\([^()]*\))?[^,()]*,\s*(['`])([a-z][a-z.-]*)(\$\{)?/g)) {
      if (m[3] !== undefined) templates.add(m[2]!);
      else read.set(m[2]!, relative(REPO_ROOT, file));
    }
  }
  t.ok(read.size >= 20, `${read.size} label keys read in the code`);
  const rows = new Set(LABELS.map((l) => l.key));
  for (const [key, file] of read) t.ok(rows.has(key), `${key} (read in ${file}) is in server/reference/labels.ts`);
  for (const key of rows) {
    t.ok(read.has(key) || [...templates].some((prefix) => key.startsWith(prefix)), `${key}: read somewhere in the code`);
  }
  t.ok(templates.has('lifecycle.'), 'the lifecycle hook labels are read by phase');
});
