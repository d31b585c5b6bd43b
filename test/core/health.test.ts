// Readiness names every check that fails, not only the first: with several engines /readyz says which
// ones are down (docs/hosts.md).
import t from 'tap';
import { Health } from '../../core/health.js';

t.test('ready: every failing check is named, the answering ones are not', async (t) => {
  const health = new Health();
  health.addReadinessCheck('docker unix:///a.sock', async () => undefined);
  health.addReadinessCheck('docker tcp://127.0.0.1:1', async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:1');
  });
  health.addReadinessCheck('docker tcp://127.0.0.1:2', async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:2');
  });
  const err = (await health.ready(1000).catch((e: unknown) => e)) as Error & { code?: string; status?: number };
  t.equal(err.code, 'TW_ERR_NOT_READY');
  t.equal(err.message, 'docker tcp://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1; docker tcp://127.0.0.1:2: connect ECONNREFUSED 127.0.0.1:2');
  t.notMatch(err.message, /a\.sock/);
});

t.test('ready: a check that does not answer in time is named', async (t) => {
  const health = new Health();
  // Answers only after the deadline (a pending timer also keeps the process alive: the deadline's is unref'd).
  health.addReadinessCheck('slow', () => new Promise((resolve) => setTimeout(resolve, 300)));
  await t.rejects(health.ready(50), { message: 'slow: no answer within 50 ms' });
  const fine = new Health();
  fine.addReadinessCheck('quick', async () => undefined);
  await t.resolves(fine.ready(50));
});
