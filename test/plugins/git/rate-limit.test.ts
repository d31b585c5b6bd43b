import t from 'tap';
import { RateLimitGate, RateLimitedError, parseRetryAfter } from '../../../plugins/git/rate-limit.js';

t.test('primary limit: a refusal with remaining 0 closes the gate until the reset', async (t) => {
  let now = 1_000_000;
  const gate = new RateLimitGate(() => now);
  t.equal(gate.observe(200, { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '2000' }), false);
  gate.check();
  t.equal(gate.observe(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2000' }, 'API rate limit exceeded'), true);
  t.throws(() => gate.check(), RateLimitedError);
  t.equal(gate.blockedUntil?.getTime(), 2_000_000);
  now = 2_000_000;
  t.doesNotThrow(() => gate.check(), 'open again at the reset');
});

t.test('a success that spends the last request closes the gate too', async (t) => {
  const gate = new RateLimitGate(() => 0);
  gate.observe(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' });
  t.throws(() => gate.check(), /no request before 1970-01-01T00:01:00.000Z/);
});

t.test('secondary limit: retry-after wins; 429 without headers waits a minute', async (t) => {
  const now = 10_000;
  const gate = new RateLimitGate(() => now);
  t.equal(gate.observe(429, { 'retry-after': '30', 'x-ratelimit-remaining': '10' }), true);
  t.equal(gate.blockedUntil?.getTime(), 40_000);
  const other = new RateLimitGate(() => now);
  t.equal(other.observe(429, {}), true);
  t.equal(other.blockedUntil?.getTime(), 70_000);
  const message = new RateLimitGate(() => now);
  t.equal(message.observe(403, {}, 'You have exceeded a secondary rate limit'), true);
});

t.test('a plain 403 is a permission problem, not a rate limit', async (t) => {
  const gate = new RateLimitGate(() => 0);
  t.equal(gate.observe(403, { 'x-ratelimit-remaining': '4000' }, 'Resource not accessible'), false);
  t.doesNotThrow(() => gate.check());
});

t.test('retry-after as seconds or HTTP date', async (t) => {
  t.equal(parseRetryAfter('5', 1000), 6000);
  t.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', 0), Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'));
  t.equal(parseRetryAfter('soon', 0), undefined);
});
