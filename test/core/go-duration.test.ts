import t from 'tap';

import {
  formatGoDuration,
  formatGoDurationNs,
  parseEnvDuration,
  parseGoDuration,
  parseGoDurationNs,
} from '../../core/go-duration.js';

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const S = 1000n * MS;
const M = 60n * S;
const H = 60n * M;

// Go's own table from time_test.go (parseDurationTests).
const valid: Array<[string, bigint]> = [
  ['0', 0n],
  ['5s', 5n * S],
  ['30s', 30n * S],
  ['1478s', 1478n * S],
  ['-5s', -5n * S],
  ['+5s', 5n * S],
  ['-0', 0n],
  ['+0', 0n],
  ['5.0s', 5n * S],
  ['5.6s', 5n * S + 600n * MS],
  ['5.s', 5n * S],
  ['.5s', 500n * MS],
  ['1.0s', S],
  ['1.00s', S],
  ['1.004s', S + 4n * MS],
  ['1.0040s', S + 4n * MS],
  ['100.00100s', 100n * S + MS],
  ['10ns', 10n],
  ['11us', 11n * US],
  ['12\u00b5s', 12n * US],
  ['12\u03bcs', 12n * US],
  ['13ms', 13n * MS],
  ['14s', 14n * S],
  ['15m', 15n * M],
  ['16h', 16n * H],
  ['3h30m', 3n * H + 30n * M],
  ['10.5s4m', 4n * M + 10n * S + 500n * MS],
  ['-2m3.4s', -(2n * M + 3n * S + 400n * MS)],
  ['1h2m3s4ms5us6ns', H + 2n * M + 3n * S + 4n * MS + 5n * US + 6n],
  ['39h9m14.425s', 39n * H + 9n * M + 14n * S + 425n * MS],
  ['52763797000ns', 52763797000n],
  ['0.3333333333333333333h', 20n * M],
  ['9007199254740993ns', (1n << 53n) + 1n],
  ['9223372036854775807ns', (1n << 63n) - 1n],
  ['9223372036854775.807us', (1n << 63n) - 1n],
  ['9223372036s854ms775us807ns', (1n << 63n) - 1n],
  ['-9223372036854775808ns', -(1n << 63n)],
  ['-9223372036854775.808us', -(1n << 63n)],
  ['-9223372036s854ms775us808ns', -(1n << 63n)],
  ['-2562047h47m16.854775808s', -(1n << 63n)],
  ['0.100000000000000000000h', 6n * M],
  ['0.830103483285477580700h', 49n * M + 48n * S + 372539827n],
  ['1.5h', 90n * M],
  ['1h30m', 90n * M],
];

const invalid = [
  '', '3', '1', '-', 's', 'h', '.', '-.', '.s', '+.s', '1d', '5x', '\u0085\u0085', '\ufffd', '\ufffd hello \ufffd world',
  '9223372036854775810ns', '9223372036854775808ns', '-9223372036854775809ns', '9223372036854776us', '3000000h',
  '9223372036854775.808us', '9223372036854ms775us808ns', '1h 30m', ' 1h', '1H',
];

t.test('parseGoDuration accepts what Go accepts, exactly', async (t) => {
  for (const [text, ns] of valid) t.equal(parseGoDurationNs(text), ns, text);
  t.equal(parseGoDuration('1.5h'), 5_400_000);
  t.equal(parseGoDuration('1h30m'), 5_400_000);
  t.equal(parseGoDuration('300ms'), 300);
  t.equal(parseGoDuration('1500us'), 1.5);
  t.equal(parseGoDuration('0'), 0);
});

t.test('parseGoDuration rejects what Go rejects, with Go messages', async (t) => {
  for (const text of invalid) t.throws(() => parseGoDurationNs(text), text);
  t.throws(() => parseGoDuration('5x'), { message: 'time: unknown unit "x" in duration "5x"' });
  t.throws(() => parseGoDuration('1'), { message: 'time: missing unit in duration "1"' });
  t.throws(() => parseGoDuration(''), { message: 'time: invalid duration ""' });
  t.throws(() => parseGoDuration('h'), { message: 'time: invalid duration "h"' });
});

t.test('formatGoDuration follows Duration.String()', async (t) => {
  const cases: Array<[bigint, string]> = [
    [0n, '0s'],
    [1n, '1ns'],
    [1100n, '1.1\u00b5s'],
    [2200n * US, '2.2ms'],
    [3300n * MS, '3.3s'],
    [4n * M + 5n * S, '4m5s'],
    [4n * M + 5001n * MS, '4m5.001s'],
    [5n * H + 6n * M + 7001n * MS, '5h6m7.001s'],
    [8n * M + 1n, '8m0.000000001s'],
    [(1n << 63n) - 1n, '2562047h47m16.854775807s'],
    [-(1n << 63n), '-2562047h47m16.854775808s'],
  ];
  for (const [ns, text] of cases) t.equal(formatGoDurationNs(ns), text, text);
  t.equal(formatGoDuration(90 * 60_000), '1h30m0s');
  t.equal(formatGoDuration(86_400_000), '24h0m0s');
  t.equal(formatGoDuration(1500), '1.5s');
  t.equal(formatGoDuration(300), '300ms');
  t.equal(formatGoDuration(0), '0s');
  t.equal(formatGoDuration(-1500), '-1.5s');
  for (const [text] of valid) {
    const ns = parseGoDurationNs(text);
    t.equal(parseGoDurationNs(formatGoDurationNs(ns)), ns, `round trip ${text}`);
  }
});

t.test('parseEnvDuration: digits alone are seconds, anything else a Go duration', async (t) => {
  t.equal(parseEnvDuration('30'), 30_000);
  t.equal(parseEnvDuration('86400'), 86_400_000);
  t.equal(parseEnvDuration('0'), 0);
  t.equal(parseEnvDuration('-5'), -5000);
  t.equal(parseEnvDuration('5m'), 300_000);
  t.equal(parseEnvDuration(' 45 '), 45_000);
  t.throws(() => parseEnvDuration('5x'));
  t.throws(() => parseEnvDuration(''));
});
