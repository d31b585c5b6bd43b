// docs/errors.md lists every error code the source raises, and nothing it does not; docs/troubleshooting.md says
// what to do about each of them.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/service.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

t.test('every TW_ERR_ code in core/, plugins/ and server/ is documented, and only those', async (t) => {
  const used = new Set<string>();
  for (const dir of ['core', 'plugins', 'server']) {
    for (const file of sources(join(REPO_ROOT, dir))) {
      // Codes appear quoted in code; `TW_ERR_X` in a comment is the pattern, not a code.
      for (const m of readFileSync(file, 'utf8').matchAll(/'(TW_ERR_[A-Z_]+)'/g)) if (m[1] !== 'TW_ERR_X') used.add(m[1]!);
    }
  }
  const documented = new Set([...readFileSync(join(REPO_ROOT, 'docs/errors.md'), 'utf8').matchAll(/^\| `(TW_ERR_[A-Z_]+)` \|/gm)].map((m) => m[1]!));
  t.ok(used.size > 30, 'the codes were found');
  t.same([...used].filter((c) => !documented.has(c)).sort(), [], 'codes missing from docs/errors.md');
  t.same([...documented].filter((c) => !used.has(c)).sort(), [], 'documented codes nothing raises');
});

t.test('docs/troubleshooting.md says what to do for every code docs/errors.md lists', async (t) => {
  const codes = (text: string, row: RegExp) => new Set([...text.matchAll(row)].flatMap((m) => [...m[1]!.matchAll(/`(TW_ERR_[A-Z_]+)`/g)].map((c) => c[1]!)));
  const documented = codes(readFileSync(join(REPO_ROOT, 'docs/errors.md'), 'utf8'), /^\| (`TW_ERR_[A-Z_]+`) \|/gm);
  const page = readFileSync(join(REPO_ROOT, 'docs/troubleshooting.md'), 'utf8');
  const table = page.slice(page.indexOf('## What to do, by code'));
  const answered = codes(table, /^\| ((?:`TW_ERR_[A-Z_]+`(?:, )?)+) \| \S/gm);
  t.ok(documented.size > 30, 'the codes were found');
  t.same([...documented].filter((c) => !answered.has(c)).sort(), [], 'codes without a row in "What to do, by code"');
  t.same([...answered].filter((c) => !documented.has(c)).sort(), [], 'rows for codes docs/errors.md does not list');
});
