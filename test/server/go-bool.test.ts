import t from 'tap';

import { isGoBool, parseGoBool } from '../../core/option-parsers.js';

t.test('the twelve spellings of strconv.ParseBool', async (t) => {
  for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) t.equal(parseGoBool(v), true, v);
  for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) t.equal(parseGoBool(v), false, v);
  for (const v of ['1', 'True', 'f', 'FALSE']) t.equal(isGoBool(v), true, v);
});

t.test('anything else throws, saying what is accepted', async (t) => {
  for (const v of ['', 'yes', 'no', 'on', 'off', 'TrUe', 'tRUE', 'y', '2', ' true', 'true ', '01']) {
    t.throws(() => parseGoBool(v), { message: /expected a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False/ }, JSON.stringify(v));
    t.equal(isGoBool(v), false);
  }
});
