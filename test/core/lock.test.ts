import t from 'tap';
import { isTidewatchError, errors } from '../../core/index.js';
import { UpdateLock } from '../../core/lock.js';

t.test('tryAcquire refuses while held and succeeds after release', async (t) => {
  const lock = new UpdateLock();
  const release = lock.tryAcquire();
  t.ok(release);
  t.equal(lock.tryAcquire(), undefined);
  release?.();
  release?.(); // releasing twice is harmless
  const again = lock.tryAcquire();
  t.ok(again);
  again?.();
  t.notOk(lock.busy);
});

t.test('waiters are served in order and the lock is handed over, not dropped', async (t) => {
  const lock = new UpdateLock();
  const first = lock.tryAcquire() as () => void;
  const order: string[] = [];
  const a = lock.acquire().then((release) => {
    order.push('a');
    return release;
  });
  const b = lock.acquire().then((release) => {
    order.push('b');
    release();
  });
  first();
  t.equal(lock.tryAcquire(), undefined, 'the lock went straight to the first waiter');
  (await a)();
  await b;
  t.same(order, ['a', 'b']);
  t.notOk(lock.busy);
});

t.test('a waiter aborted while waiting gets TW_ERR_ABORTED and leaves the queue', async (t) => {
  const lock = new UpdateLock();
  const held = lock.tryAcquire() as () => void;
  const controller = new AbortController();
  const waiting = lock.acquire(controller.signal);
  controller.abort();
  const err = await waiting.catch((e: unknown) => e);
  t.ok(isTidewatchError(err, errors.aborted));
  held();
  t.notOk(lock.busy, 'the aborted waiter did not take the lock');
});
