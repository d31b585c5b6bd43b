// The cooldown gate with a stub image-age service: syntax, label rules, what it leaves alone, and
// that an unknown age defers.
import t from 'tap';
import {
  createTidewatch,
  type RunContext,
  type Staleness,
  type Target,
  type TidewatchPlugin,
} from '../../../core/index.js';
import { REMOTE_IMAGES, type RemoteImages } from '../../../contracts/index.js';
import { cooldownPlugin, parseCooldownLabel } from '../../../plugins/cooldown/index.js';
import { formatDuration } from '../../../plugins/cooldown/duration.js';
import { cooldownGate } from '../../../plugins/cooldown/gate.js';
import { silentLogger } from '../../../core/logger.js';
import { asStaleness } from '../../helpers/staleness.js';
import { fakeTarget } from '../../helpers/targets.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const LATEST = `sha256:${'c'.repeat(64)}`;

t.test('cooldown syntax', async (t) => {
  t.equal(parseCooldownLabel('0'), 0);
  t.equal(parseCooldownLabel(''), 0);
  t.equal(parseCooldownLabel('90'), 90_000, 'digits only are seconds');
  t.equal(parseCooldownLabel('30m'), 30 * 60_000);
  t.equal(parseCooldownLabel('1d12h'), 1.5 * DAY);
  t.equal(parseCooldownLabel('1.5w'), 10.5 * DAY);
  t.equal(parseCooldownLabel('2M'), 60 * DAY);
  t.equal(parseCooldownLabel(' 1h30s '), HOUR + 30_000);
  for (const bad of ['1y', '-1h', 'h', '1 h', 'soon', '1hx', '1H']) {
    t.throws(() => parseCooldownLabel(bad), /invalid cooldown/, bad);
  }
  t.equal(formatDuration(DAY + 3 * HOUR + 5000), '1d3h');
  t.equal(formatDuration(59_000), '59s');
  t.equal(formatDuration(0), '0s');
});

function target(name: string, labels: Record<string, string> = {}): Target {
  return fakeTarget(name, { runtime: 'stub', imageId: `sha256:${'0'.repeat(64)}`, repoDigests: [`127.0.0.1:5101/demo/${name}@sha256:${'1'.repeat(64)}`], labels });
}

interface Scenario {
  targets: Target[];
  delayMs: number;
  /** image name → created, or an Error to throw, or undefined for "no created". */
  created: Record<string, Date | Error | undefined>;
  staleness?: (t: Target) => Staleness;
  provide?: boolean;
}

async function update(s: Scenario) {
  const asked: string[] = [];
  const plugins: TidewatchPlugin<object>[] = [
    {
      name: 'stub',
      apply(core) {
        core.hooks.discover.tapPromise('stub', async (found) => [...found, ...s.targets]);
        core.hooks.checkStaleness.tapPromise('stub', async (tg) =>
          s.staleness ? s.staleness(tg) : { source: 'registry', stale: true, latestDigest: LATEST },
        );
        core.hooks.apply.tapPromise('stub', async (plan) => ({ target: plan.target, outcome: 'updated' }));
        if (s.provide === false) return;
        core.services.provide(REMOTE_IMAGES, {
          async created(reference) {
            asked.push(reference);
            const name = /demo\/([^@]+)@/.exec(reference)?.[1] ?? '';
            const v = s.created[name];
            if (v instanceof Error) throw v;
            return v;
          },
        });
      },
    },
    { plugin: cooldownPlugin, options: { delayMs: s.delayMs } } as unknown as TidewatchPlugin<object>,
  ];
  const tw = await createTidewatch({ plugins });
  const report = await tw.update();
  const check = await tw.check();
  await tw.close();
  const skipped = (name: string) => report.skipped.find((x) => x.target.name === name)?.reason;
  const updated = report.results.filter((r) => r.outcome === 'updated').map((r) => r.target.name).sort();
  return { report, check, skipped, updated, asked };
}

t.test('defers a young image, lets an old one through, and the check ignores it', async (t) => {
  const now = Date.now();
  const r = await update({
    targets: [target('young'), target('old'), target('future')],
    delayMs: DAY,
    created: { young: new Date(now - 2 * HOUR), old: new Date(now - 3 * DAY), future: new Date(now + HOUR) },
  });
  t.same(r.updated, ['future', 'old'], 'old passes; a creation time in the future (clock skew) does not block');
  t.match(r.skipped('young'), /^cooldown: image created 2h\w* ago, delay 1d, eligible in 2[12]h/);
  t.equal(r.report.summary.skipped, 1);
  t.ok(r.check.results.every((x) => x.staleness.stale), 'the check reports all three as stale');
  t.same(r.asked.sort(), [
    `127.0.0.1:5101/demo/future@${LATEST}`,
    `127.0.0.1:5101/demo/old@${LATEST}`,
    `127.0.0.1:5101/demo/young@${LATEST}`,
  ], 'the exact image an update would pull is aged');
});

t.test('unknown age defers', async (t) => {
  const r = await update({
    targets: [target('missing'), target('failing')],
    delayMs: DAY,
    created: { missing: undefined, failing: new Error('blob unknown') },
  });
  t.same(r.updated, []);
  t.match(r.skipped('missing'), /creation time unavailable \(the image config has no creation time\)/);
  t.match(r.skipped('failing'), /creation time unavailable \(blob unknown\)/);
  // Without anything that reads image configs the cooldown cannot work at all: start-up says so.
  const none = await update({ targets: [target('x')], delayMs: DAY, created: {}, provide: false }).catch((e: unknown) => e);
  t.match(none, { code: 'TW_ERR_SERVICE_MISSING', message: /plugin cooldown needs the remote-images service/ });
});

t.test('the label: overrides the flag, 0 turns it off, junk falls back to the flag', async (t) => {
  const now = Date.now();
  const young = new Date(now - HOUR);
  const r = await update({
    targets: [
      target('off', { 'tidewatch.cooldown-delay': '0' }),
      target('short', { 'com.centurylinklabs.watchtower.cooldown-delay': '30m' }),
      target('long', { 'tidewatch.cooldown-delay': '1w' }),
      target('junk', { 'tidewatch.cooldown-delay': 'a while' }),
    ],
    delayMs: DAY,
    created: { off: young, short: young, long: young, junk: young },
  });
  t.same(r.updated, ['off', 'short']);
  t.match(r.skipped('long'), /delay 7d/);
  t.match(r.skipped('junk'), /delay 1d/);
  const flagOff = await update({ targets: [target('on', { 'tidewatch.cooldown-delay': '2h' })], delayMs: 0, created: { on: young } });
  t.match(flagOff.skipped('on'), /delay 2h/, 'a label turns it on when the flag is off');
});

t.test('leaves alone: local (no-pull) comparisons, Git sources, and non-update runs', async (t) => {
  const r = await update({
    targets: [target('local'), target('git')],
    delayMs: DAY,
    created: {},
    staleness: (tg) =>
      tg.name === 'local'
        ? { source: 'registry', stale: true, latestImageId: `sha256:${'9'.repeat(64)}` }
        : asStaleness({ source: 'git', stale: true, git: { repo: 'r', ref: 'main' } }),
  });
  t.same(r.updated, ['git', 'local']);
  t.same(r.asked, []);
  const ctx = { kind: 'check', logger: silentLogger, signal: new AbortController().signal, memo: (_k: string, f: () => Promise<unknown>) => f() } as unknown as RunContext;
  const unused: RemoteImages = { created: async () => { throw new Error('a check never ages an image'); } };
  t.equal(await cooldownGate(unused, target('x'), { source: 'registry', stale: true, latestDigest: LATEST }, ctx, { delayMs: DAY }), undefined);
});

t.test("the fork's WATCHTOWER_COOLDOWN_PLATFORM_OS|ARCH|VARIANT become the aged platform", async (t) => {
  const { cooldownPlatform } = await import('../../../plugins/cooldown/index.js');
  const none = { platform: '', platformOs: '', platformArch: '', platformVariant: '' };
  t.equal(cooldownPlatform(none), undefined, 'nothing set: the registry plugin decides');
  t.equal(cooldownPlatform({ ...none, platformArch: 'arm', platformVariant: 'v7' }), 'linux/arm/v7');
  t.equal(cooldownPlatform({ ...none, platformOs: 'windows', platformArch: 'amd64' }), 'windows/amd64');
  t.match(cooldownPlatform({ ...none, platformVariant: 'v8' }), /^linux\/[a-z0-9_]+\/v8$/, "this machine's architecture");
  t.equal(cooldownPlatform({ ...none, platform: 'linux/s390x' }), 'linux/s390x');
});
