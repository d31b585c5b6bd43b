// Update windows as start + duration (docs/policies.md#update-windows): croner's times, time zones and DST,
// and the peer failure this design avoids (a cron matched minute by minute opening five one-minute windows).
import t from 'tap';
import { parseWindow, parseWindows, windowState } from '../../../plugins/policies/index.js';

const at = (iso: string) => new Date(iso);

t.test('a cron range opens one window of DURATION at each time, not a window per matching minute', async (t) => {
  const windows = parseWindows('0 2-6 * * *;30m;UTC');
  t.same(windowState(windows, at('2026-05-04T04:10:00Z')), { open: true }, 'opened at 04:00 for 30 minutes');
  const closed = windowState(windows, at('2026-05-04T04:40:00Z'));
  t.equal(closed.open, false, '04:40 is between the 04:00 and 05:00 windows');
  t.equal(closed.next?.toISOString(), '2026-05-04T05:00:00.000Z');
  t.equal(windowState(windows, at('2026-05-04T04:30:00Z')).open, false, 'a window ends exactly DURATION after it opened');
  t.equal(windowState(windows, at('2026-05-04T04:00:00Z')).open, true, 'and is open at its opening instant');
  t.equal(windowState(windows, at('2026-05-04T06:29:59Z')).open, true, 'the last opening of the range (06:00) keeps its duration');
  t.equal(windowState(windows, at('2026-05-04T07:00:00Z')).next?.toISOString(), '2026-05-05T02:00:00.000Z', 'next: tomorrow 02:00');
});

t.test('a window may run past midnight, and a step in another time zone', async (t) => {
  const late = parseWindows('0 23 * * *;3h;UTC');
  t.equal(windowState(late, at('2026-05-05T01:30:00Z')).open, true, 'opened 23:00 the day before');
  t.equal(windowState(late, at('2026-05-05T02:00:00Z')).open, false);
  // Every 20 minutes from 09:00 to 09:59 New York time (UTC-4 in May), open 5 minutes each.
  const stepped = parseWindows('*/20 9 * * *;5m;America/New_York');
  t.equal(windowState(stepped, at('2026-05-04T13:21:00Z')).open, true, '09:21 New York: the 09:20 window');
  const between = windowState(stepped, at('2026-05-04T13:26:00Z'));
  t.equal(between.open, false);
  t.equal(between.next?.toISOString(), '2026-05-04T13:40:00.000Z', 'the next step, 09:40 New York');
  t.equal(windowState(stepped, at('2026-05-04T09:21:00Z')).open, false, '09:21 UTC is 05:21 in New York');
});

t.test('daylight saving time: the window follows the zone\'s wall clock', async (t) => {
  const berlin = parseWindows('0 3 * * *;1h;Europe/Berlin');
  // 03:00 in Berlin is 02:00 UTC in winter (CET) and 01:00 UTC in summer (CEST); the clocks change on 29 March 2026.
  t.equal(windowState(berlin, at('2026-03-28T02:30:00Z')).open, true, 'winter: 03:30 Berlin');
  t.equal(windowState(berlin, at('2026-03-30T01:30:00Z')).open, true, 'summer: 03:30 Berlin');
  t.equal(windowState(berlin, at('2026-03-30T02:30:00Z')).open, false, 'summer: 04:30 Berlin is outside');
  t.equal(windowState(berlin, at('2026-03-29T00:30:00Z')).next?.toISOString(), '2026-03-29T01:00:00.000Z', 'the day the clocks change');
});

t.test('several windows: open when any is, next is the soonest', async (t) => {
  const windows = parseWindows('0 3 * * *;1h;UTC | 0 12 * * 6;2h;UTC');
  t.equal(windowState(windows, at('2026-05-09T13:00:00Z')).open, true, 'Saturday noon window');
  t.equal(windowState(windows, at('2026-05-09T15:00:00Z')).next?.toISOString(), '2026-05-10T03:00:00.000Z');
  t.same(parseWindows('always'), [], 'always: no window');
  t.same(windowState([], at('2026-05-09T15:00:00Z')), { open: true }, 'no window: always open');
});

t.test('what a window spec refuses, with what is accepted', async (t) => {
  t.throws(() => parseWindow('0 3 * *;1h'), /5 cron fields/);
  t.throws(() => parseWindow('0 0 3 * * *;1h'), /5 cron fields/, 'croner\'s seconds field is not a window\'s');
  t.throws(() => parseWindow('0 3 * * *'), /CRON;DURATION\[;TZ\]/);
  t.throws(() => parseWindow('0 3 * * *;soon'), /not a duration/);
  t.throws(() => parseWindow('0 3 * * *;0s'), /must be positive/);
  t.throws(() => parseWindow('0 3 * * *;1h;Mars/Olympus'), /unknown time zone "Mars\/Olympus"/);
  t.throws(() => parseWindow('0 25 * * *;1h'), /not a cron expression/);
  t.equal(parseWindow(' 0 3 * * * ; 90m ; Asia/Tokyo ').durationMs, 90 * 60_000);
});
