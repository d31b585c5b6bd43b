// Name patterns that are literals joined by `.*` are matched without compiling them (core/request-filter.ts,
// docs/performance.md#memory): their answers must be RE2's, name for name. Compared here with re2js itself over
// every pattern and name below, the edges included (empty literals, overlaps, a newline, the pattern's own text).
import { createRequire } from 'node:module';
import t from 'tap';
import { nameMatcher } from '../../core/request-filter.js';

const { RE2JS } = createRequire(import.meta.url)('re2js') as typeof import('re2js');

const PATTERNS = ['app-.*', '.*-db', '.*', '.*.*', 'web-.*-1', 'a.*a', 'aa.*aa', 'a.*b.*c', '.*ab.*', 'x.*.*y', 'tw_.*', 'ab.*ba', 'a.*'];
const NAMES = ['', 'a', 'aa', 'aaa', 'aba', 'abba', 'ab', 'ba', 'abc', 'axbxc', 'acb', 'app-', 'app-web', 'xapp-web', 'main-db', 'db', '-db', 'web-2-1', 'web--1', 'web-1', 'xy', 'x-y', 'yx', 'tw_x', 'a\nb', 'a\na', 'app-\nx', 'ab.*ba', 'aab', 'abab'];

t.test('literals joined by .* answer as RE2 does, without loading it', async (t) => {
  for (const pattern of PATTERNS) {
    const re = RE2JS.compile(pattern);
    const match = nameMatcher(pattern);
    for (const name of NAMES) {
      const expected = name === pattern || re.matcher(name).matches();
      t.equal(match(name), expected, `${JSON.stringify(pattern)} on ${JSON.stringify(name)}`);
    }
  }
});
