// npm run docs:reference: writes the generated reference pages (server/reference/render.ts) from the code.
// test/docs/reference.test.ts fails while a committed page differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedPages } from '../server/reference/render.js';

const root = join(import.meta.dirname, '..');
for (const [path, text] of Object.entries(generatedPages((p) => readFileSync(join(root, p), 'utf8')))) {
  const file = join(root, path);
  let before = '';
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    // a new page
  }
  if (before !== text) writeFileSync(file, text);
  console.log(`${before === text ? 'current' : 'written'} ${path}`);
}
