import t from 'tap';
import { orderByDependencies, targetKey, transitiveDependents } from '../../core/dependency-order.js';
import { fakeTarget } from '../helpers/targets.js';

const names = (list: { name: string }[]) => list.map((x) => x.name);

t.test('dependencies come before dependents; unrelated targets keep their order', async (t) => {
  const targets = [
    fakeTarget('app', { dependsOn: ['api'] }),
    fakeTarget('api', { dependsOn: ['db'] }),
    fakeTarget('other'),
    fakeTarget('db'),
  ];
  const { ordered, cyclic } = orderByDependencies(targets);
  t.same(names(ordered), ['other', 'db', 'api', 'app']);
  t.same(cyclic, []);
});

t.test('cycles and what hangs behind them are set apart', async (t) => {
  const targets = [
    fakeTarget('a', { dependsOn: ['b'] }),
    fakeTarget('b', { dependsOn: ['a'] }),
    fakeTarget('c', { dependsOn: ['b'] }),
    fakeTarget('d', { dependsOn: ['d'] }),
  ];
  const { ordered, cyclic } = orderByDependencies(targets);
  t.same(names(ordered), ['d'], 'a self-dependency is ignored');
  t.same(names(cyclic), ['a', 'b', 'c']);
});

t.test('transitive dependents', async (t) => {
  const targets = [fakeTarget('db'), fakeTarget('api', { dependsOn: ['db'] }), fakeTarget('app', { dependsOn: ['api'] }), fakeTarget('x')];
  t.same([...transitiveDependents(targets, new Set(['db']))].sort(), ['api', 'app']);
  t.same([...transitiveDependents(targets, new Set(['app']))], []);
});

t.test('names repeat across engines: each engine has its own dependency graph (docs/hosts.md)', async (t) => {
  const a = 'unix:///a.sock';
  const b = 'tcp://127.0.0.1:2376';
  const targets = [
    fakeTarget('web', { host: a, dependsOn: ['db'] }),
    fakeTarget('db', { host: a }),
    fakeTarget('web', { host: b }),
    fakeTarget('db', { host: b, dependsOn: ['web'] }),
  ];
  const { ordered, cyclic } = orderByDependencies(targets);
  t.same(
    ordered.map((x) => `${x.host} ${x.name}`),
    [`${a} db`, `${b} web`, `${a} web`, `${b} db`],
    'four targets, each once, in each engine\'s own order',
  );
  t.same(cyclic, [], 'web→db on one engine and db→web on the other is no cycle');
  t.same([...transitiveDependents(targets, new Set([targetKey(targets[1]!)]))], [targetKey(targets[0]!)], 'db of engine a restarts web of engine a only');
});
