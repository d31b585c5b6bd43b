// docs/errors.md lists every error code the source raises, and nothing it does not.
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
