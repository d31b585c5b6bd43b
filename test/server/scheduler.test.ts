import t from 'tap';
import { parseGoDuration } from '../../core/index.js';
import { parseSchedule, startSchedule } from '../../server/scheduler.js';

t.test('cron with and without seconds, descriptors, and @every', async (t) => {
  t.same(parseSchedule('0 0 4 * * *', parseGoDuration), { cron: '0 0 4 * * *' });
  t.same(parseSchedule(' 0 4 * * * ', parseGoDuration), { cron: '0 4 * * *' });
  t.same(parseSchedule('@daily', parseGoDuration), { cron: '@daily' });
  t.same(parseSchedule('@every 1h30m', parseGoDuration), { everyMs: 5_400_000 });
  t.throws(() => parseSchedule('every day', parseGoDuration), { name: 'InvalidScheduleError' });
  t.throws(() => parseSchedule('@every 0s', parseGoDuration), { name: 'InvalidScheduleError' });
  t.throws(() => parseSchedule('61 * * * *', parseGoDuration), { name: 'InvalidScheduleError' });
});

t.test('an interval schedule runs repeatedly and stops', async (t) => {
  let runs = 0;
  const schedule = startSchedule({ everyMs: 30 }, async () => void runs++);
  t.ok(schedule.next() instanceof Date);
  await new Promise((r) => setTimeout(r, 110));
  schedule.stop();
  const seen = runs;
  t.ok(seen >= 2, `ran ${seen} times`);
  await new Promise((r) => setTimeout(r, 80));
  t.equal(runs, seen, 'no run after stop');
});

t.test('a cron schedule with seconds fires and reports the next run', async (t) => {
  let runs = 0;
  const schedule = startSchedule({ cron: '* * * * * *' }, async () => void runs++);
  const next = schedule.next();
  t.ok(next && next.getTime() - Date.now() <= 1000);
  await new Promise((r) => setTimeout(r, 2100));
  schedule.stop();
  t.ok(runs >= 1, `ran ${runs} times`);
});
