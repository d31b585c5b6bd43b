// The Watchtower fork's four selection filters through the binary on the real engine: each one narrows what
// is updated (docs/watchtower-fork.md#selection-filters). Every container has a newer image waiting;
// only the one every filter lets through is replaced.
import t from 'tap';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { runBinary } from '../helpers/service.js';

t.test('monitor/skip image names and enable/disable by label narrow a run-once as the fork does', async (t) => {
  const s = await scenario(t, 'e2e-wt-filters');
  if (!s) return;
  const { env, engine, prefix } = s;
  const run = (name: string, labels: Record<string, string>) => runningOn(s, name, { run: { labels } });
  const running = [
    await run('picked', { env: 'prod' }),
    await run('gameserver', { env: 'prod', 'game-server': 'yes' }),
    await run('skipped', { env: 'prod' }),
    await run('unwatched', { env: 'prod' }),
    await run('unlabelled', {}),
  ];
  for (const r of running) await pushNext(s, r);
  const idOf = async (name: string) => (await engine.getContainer(name).inspect()).Id;
  const before = new Map(await Promise.all(running.map(async (r) => [r.name, await idOf(r.name)] as const)));

  const result = await runBinary(['--host', env.dockerHost, '--run-once', '--stop-timeout', '5s', `${prefix}-.*`], {
    // The fork's variables as a Watchtower compose file would set them.
    WATCHTOWER_MONITOR_IMAGE_NAMES: `${env.registry}/${prefix}/(picked|gameserver|skipped|unlabelled):.*`,
    WATCHTOWER_SKIP_IMAGE_NAMES: `.*/skipped:latest`,
    WATCHTOWER_ENABLE_CONTAINERS_BY_LABEL: 'env=prod,other=',
    WATCHTOWER_DISABLE_CONTAINERS_BY_LABEL: 'game-server=',
  }, 120_000);
  t.equal(result.code, 0, result.stderr);
  t.notMatch(result.stdout, /accepted.*not implemented|ignored/i, 'no option reported as ignored');
  const replaced = [];
  for (const r of running) if ((await idOf(r.name)) !== before.get(r.name)) replaced.push(r.name);
  t.same(replaced, [`${prefix}-picked`], 'only the container every filter lets through was updated');
});

t.test('a malformed label pair exits 2 naming the option', async (t) => {
  const result = await runBinary(['--run-once', '--disable-containers-by-label', 'game-server'], {}, 30_000);
  t.equal(result.code, 2);
  t.match(result.stderr + result.stdout, /--disable-containers-by-label/);
  t.equal((result.stderr + result.stdout).trim().split('\n').length, 1, 'one line');
});
