// The cooldown syntax (`--cooldown-delay`, label `cooldown-delay`): the cooldown plugin's own parser
// (plugins/cooldown/duration.ts), for the option and the label alike.
import t from 'tap';
import { parseCooldownDuration, parseCooldownOption } from '../../../plugins/cooldown/duration.js';

t.test('parseCooldownDuration', async (t) => {
  const d = 86_400_000;
  t.equal(parseCooldownDuration('0'), 0);
  t.equal(parseCooldownDuration(''), 0);
  t.equal(parseCooldownDuration('30s'), 30_000);
  t.equal(parseCooldownDuration('90m'), 5_400_000);
  t.equal(parseCooldownDuration('12h'), 12 * 3_600_000);
  t.equal(parseCooldownDuration('3d12h'), 3.5 * d);
  t.equal(parseCooldownDuration('2w'), 14 * d);
  t.equal(parseCooldownDuration('1M'), 30 * d);
  t.equal(parseCooldownDuration('1M2w3d4h5m6s'), 30 * d + 14 * d + 3 * d + 4 * 3_600_000 + 5 * 60_000 + 6000);
  t.equal(parseCooldownDuration('1.5d'), 1.5 * d);
  t.equal(parseCooldownDuration('60'), 60_000);
  for (const bad of ['-1d', '5x', 'd', '1y', '1 d', '3d-2h', '1D', 'abc']) {
    t.throws(() => parseCooldownDuration(bad), bad);
  }
});

t.test('the option parser names the syntax in a coded error', async (t) => {
  t.equal(parseCooldownOption('3d12h', { origin: 'flag', cwd: '/' }), 3.5 * 86_400_000);
  t.throws(() => parseCooldownOption('soon', { origin: 'flag', cwd: '/' }), { code: 'TW_ERR_INVALID_VALUE', message: /expected a delay such as 12h, 3d12h, 2w or 1M/ });
});
