// Exits 0 when the running node satisfies package.json's "engines.node" (docs/node.md), else 1 with a
// line saying why. The range is a list of comparators joined by spaces (">=24 <25"), which is all the
// project writes; anything else in it is an error, not a silent pass.
import { readFileSync } from 'node:fs';

const range = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines?.node;
if (typeof range !== 'string') {
  console.error('engines-check: package.json has no engines.node');
  process.exit(2);
}
const parse = (v) => v.split('.').map(Number).concat(0, 0, 0).slice(0, 3);
const compare = (a, b) => a.reduce((d, x, i) => d || x - b[i], 0);
const current = parse(process.versions.node);
const tests = { '>=': (c) => c >= 0, '>': (c) => c > 0, '<=': (c) => c <= 0, '<': (c) => c < 0, '=': (c) => c === 0 };
for (const comparator of range.trim().split(/\s+/)) {
  const m = /^(>=|<=|>|<|=)?(\d+(?:\.\d+){0,2})$/.exec(comparator);
  if (!m) {
    console.error(`engines-check: cannot read "${comparator}" in engines.node "${range}"`);
    process.exit(2);
  }
  if (!tests[m[1] ?? '='](compare(current, parse(m[2])))) {
    console.error(`engines-check: node ${process.version} is outside engines.node "${range}"`);
    process.exit(1);
  }
}
