// Go's ParseDuration and Duration.String, as Watchtower users' scripts send and read them.
import t from 'tap';
import { formatGoDurationNs, parseGoDurationNs } from '../../../plugins/http-api/go-duration.js';

t.test('parse', async (t) => {
  const cases: [string, bigint][] = [
    ['0', 0n],
    ['30s', 30_000_000_000n],
    ['2m', 120_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['1.5s', 1_500_000_000n],
    ['.5s', 500_000_000n],
    ['300ms', 300_000_000n],
    ['10us', 10_000n],
    ['10µs', 10_000n],
    ['10μs', 10_000n],
    ['7ns', 7n],
    ['-1s', -1_000_000_000n],
    ['+2h', 7_200_000_000_000n],
    ['1h2m3s4ms', 3_723_004_000_000n],
  ];
  for (const [text, ns] of cases) t.equal(parseGoDurationNs(text), ns, text);
  for (const bad of ['', '1', '1.5', 's', '.s', '5x', '1h-2m', 'abc', '-', '9999999999999h']) {
    t.throws(() => parseGoDurationNs(bad), /^time: /, JSON.stringify(bad));
  }
  t.throws(() => parseGoDurationNs('10'), /missing unit/);
  t.throws(() => parseGoDurationNs('5x'), /unknown unit "x"/);
});

t.test('format like Duration.String()', async (t) => {
  const cases: [bigint, string][] = [
    [0n, '0s'],
    [1n, '1ns'],
    [1_100n, '1.1µs'],
    [2_200_000n, '2.2ms'],
    [1_250_123_456n, '1.250123456s'],
    [60_000_000_000n, '1m0s'],
    [5_400_000_000_000n, '1h30m0s'],
    [300_000_000_000n, '5m0s'],
    [-1_500_000_000n, '-1.5s'],
  ];
  for (const [ns, text] of cases) t.equal(formatGoDurationNs(ns), text, text);
});
