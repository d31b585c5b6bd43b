// Which lane each test file runs in (CONTRIBUTING.md#test-lanes), printed as `<lane> <file>` lines, sorted.
//
// environment: the file needs the test environment (scripts/test-env.sh: the private engines, registries,
//   broker, Podman) or starts one of its own: it reaches test/helpers/env.ts through its imports (directly
//   or through another file under test/), names TIDEWATCH_ENV_* or requireEnv, or carries the marker
//   line `// test-lane: environment`.
// unit: every other file. The unit lane runs first, on every core, while the environment starts.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const ENV_HELPER = 'test/helpers/env.ts';
const MARKER = /^\/\/ test-lane: environment\b/m;

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const memo = new Map();
function needsEnvironment(file, seen = new Set()) {
  if (file === ENV_HELPER) return true;
  if (memo.has(file)) return memo.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let result = MARKER.test(text) || /TIDEWATCH_ENV_|requireEnv\(/.test(text);
  if (!result) {
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = path.posix.join(path.posix.dirname(file), spec).replace(/\.(js|mjs)$/, (ext) => (ext === '.js' ? '.ts' : ext));
      if (target.startsWith('test/') && existsSync(target) && needsEnvironment(target, seen)) {
        result = true;
        break;
      }
    }
  }
  memo.set(file, result);
  return result;
}

for (const file of testFiles('test').sort()) console.log(`${needsEnvironment(file) ? 'environment' : 'unit'} ${file}`);
