// A dependency chain restarts in order: dependents stop first, dependencies start first; the ones
// restarted only because their dependency was replaced count as `restarted`.
import t from 'tap';
import type Docker from 'dockerode';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { QUICK_STOP_CMD, containerNames, tidewatchFor } from './fixtures/setup.js';
import { scenario } from '../../helpers/scenarios.js';

interface EngineEvent {
  readonly Action: string;
  readonly Actor: { readonly ID: string; readonly Attributes: Record<string, string> };
  readonly timeNano: number;
}

async function containerEvents(engine: Docker, since: number, until: number): Promise<EngineEvent[]> {
  const stream = (await engine.getEvents({ since, until, filters: { type: ['container'] } })) as NodeJS.ReadableStream;
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EngineEvent);
}

t.test('db ← api ← web: stop web, api, db; start db, api, web', async (t) => {
  const s = await scenario(t, 'docker-order');
  if (!s) return;
  const { env, engine, prefix } = s;

  const dbImage = await pushImage({ registry: env.registry, repo: `${prefix}/db`, marker: 'db1', cmd: QUICK_STOP_CMD });
  const appImage = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'app', cmd: QUICK_STOP_CMD });
  await pullImage(engine, dbImage.ref);
  await pullImage(engine, appImage.ref);
  const name = (s: string) => `${prefix}-${s}`;
  // Created in an order unrelated to the dependencies.
  await runContainer(engine, { name: name('web'), image: appImage.ref, labels: { 'tidewatch.depends-on': name('api') } });
  await runContainer(engine, { name: name('db'), image: dbImage.ref });
  await runContainer(engine, { name: name('api'), image: appImage.ref, labels: { 'com.centurylinklabs.watchtower.depends-on': name('db') } });
  const db2 = await pushImage({ registry: env.registry, repo: `${prefix}/db`, marker: 'db2', cmd: QUICK_STOP_CMD });

  const { tw } = await tidewatchFor(env, prefix, { gracePeriodMs: 300 });
  t.teardown(() => tw.close());
  const startNs = Date.now() * 1_000_000;
  const since = Math.floor(Date.now() / 1000) - 1;
  const report = await tw.update();
  const until = Math.ceil(Date.now() / 1000) + 1;
  t.match(report.summary, { scanned: 3, updated: 1, restarted: 2, failed: 0 });
  t.same(
    report.results.map((r) => [r.target.name, r.outcome]),
    [[name('db'), 'updated'], [name('api'), 'restarted'], [name('web'), 'restarted']],
  );

  const original = (n: string) => n.replace(/--tidewatch-(old|new)-.*$/, '');
  const events = (await containerEvents(engine, since, until)).filter(
    (e) => e.timeNano >= startNs && (e.Actor.Attributes['name'] ?? '').startsWith(prefix),
  );
  const sequence = (action: string) =>
    events.filter((e) => e.Action === action).map((e) => original(e.Actor.Attributes['name'] as string).slice(prefix.length + 1));
  t.same(sequence('die'), ['web', 'api', 'db'], 'dependents stop before what they depend on');
  t.same(sequence('start'), ['db', 'api', 'web'], 'dependencies start before their dependents');

  t.equal((await engine.getContainer(name('db')).inspect()).Image, db2.configDigest);
  for (const s of ['db', 'api', 'web']) t.ok((await engine.getContainer(name(s)).inspect()).State.Running, `${s} runs`);
  t.same(await containerNames(engine, prefix), [name('api'), name('db'), name('web')]);
});
