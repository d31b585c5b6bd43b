// The docker runtime's selection (docs/configuration.md#shared-options): the shared selection options as the core
// applies them (`core.applySelection`) with what the runtime adds, its own container's scope and the containers of a
// replacement in progress, exactly as plugins/docker/start.ts hands them over.
import t from 'tap';
import { createTidewatch, type Target } from '../../../core/index.js';
import type { SelectionRules } from '../../../core/selection-rules.js';
import { effectiveScope, inReplacement } from '../../../plugins/docker/selection.js';
import { fakeTarget } from '../../helpers/targets.js';

/** The targets a run selects, through the core's select stage. */
async function selectDockerTargets(targets: readonly Target[], rules: SelectionRules, ownId?: string): Promise<Target[]> {
  const tw = await createTidewatch({
    plugins: [
      {
        name: 'stub',
        apply(core) {
          core.hooks.discover.tapPromise('stub', async (found) => [...found, ...targets]);
          core.applySelection('docker', rules, { scope: (all) => effectiveScope(rules.scope, all, ownId), exclude: inReplacement });
        },
      },
    ],
  });
  try {
    return await tw.targets();
  } finally {
    await tw.close();
  }
}

const docker = (name: string, labels: Record<string, string> = {}, extra: Partial<Target> = {}) =>
  fakeTarget(name, { runtime: 'docker', labels, ...extra });
const base: SelectionRules = {
  names: [], disableContainers: [], monitorImageNames: [], skipImageNames: [], enableContainersByLabel: [], disableContainersByLabel: [], labelEnable: false, scope: '',
};
const names = (targets: Target[]) => targets.map((x) => x.name);

t.test('enable=false always excludes; labelEnable keeps only enable=true', async (t) => {
  const targets = [
    docker('plain'),
    docker('on', { 'tidewatch.enable': 'true' }),
    docker('off', { 'com.centurylinklabs.watchtower.enable': 'false' }),
    docker('garbage', { 'tidewatch.enable': 'maybe' }),
    docker('tw-wins', { 'tidewatch.enable': 'true', 'com.centurylinklabs.watchtower.enable': 'false' }),
  ];
  t.same(names(await selectDockerTargets(targets, base)), ['plain', 'on', 'garbage', 'tw-wins']);
  t.same(names(await selectDockerTargets(targets, { ...base, labelEnable: true })), ['on', 'tw-wins']);
});

t.test('scope: unset matches unscoped and none only; a scope matches exactly', async (t) => {
  const targets = [
    docker('unscoped'),
    docker('none', { 'tidewatch.scope': 'none' }),
    docker('empty', { 'tidewatch.scope': '' }),
    docker('blue', { 'com.centurylinklabs.watchtower.scope': 'blue' }),
    docker('green', { 'tidewatch.scope': 'green' }),
  ];
  t.same(names(await selectDockerTargets(targets, base)), ['unscoped', 'none', 'empty']);
  t.same(names(await selectDockerTargets(targets, { ...base, scope: 'none' })), ['unscoped', 'none', 'empty']);
  t.same(names(await selectDockerTargets(targets, { ...base, scope: 'blue' })), ['blue']);
});

t.test('the scope of our own container becomes the scope when none is given', async (t) => {
  const self = docker('tidewatch', { 'tidewatch.scope': 'blue' }, { id: 'self-id', isSelf: true });
  t.equal(effectiveScope('', [docker('a'), self], 'self-id'), 'blue');
  t.equal(effectiveScope('green', [self], 'self-id'), 'green', 'the option wins');
  t.equal(effectiveScope('', [self], undefined), '', 'no own container known: unscoped');
  const targets = [docker('a'), docker('b', { 'tidewatch.scope': 'blue' }), self];
  t.same(names(await selectDockerTargets(targets, base, 'self-id')), ['b', 'tidewatch'], 'a run selects by it');
});

t.test('names and disabled names: exact or anchored RE2; other runtimes pass through', async (t) => {
  const targets = [docker('web-1'), docker('web-2'), docker('db'), docker('webby'), fakeTarget('elsewhere')];
  t.same(names(await selectDockerTargets(targets, { ...base, names: ['web-[0-9]', '/db'] })), ['web-1', 'web-2', 'db', 'elsewhere']);
  t.same(names(await selectDockerTargets(targets, { ...base, disableContainers: ['web-.*'] })), ['db', 'webby', 'elsewhere']);
  t.same(names(await selectDockerTargets(targets, { ...base, names: ['web'] })), ['elsewhere'], 'anchored: web matches no web-1');
});

t.test('containers of a replacement in progress are never targets', async (t) => {
  const targets = [docker('app'), docker('app--tidewatch-old-0123456789ab-running'), docker('app--tidewatch-new-0123456789ab')];
  t.same(names(await selectDockerTargets(targets, base)), ['app']);
});

t.test("the fork's image filters match the image with its tag, anchored; label pairs read keys literally", async (t) => {
  const targets = [
    docker('web', {}, { image: 'nginx' }),
    docker('cache', {}, { image: 'redis:7.2' }),
    docker('db', { env: 'prod' }, { image: '127.0.0.1:5000/postgres' }),
    docker('game', { env: 'prod', 'game-server': 'yes' }, { image: 'ghcr.io/x/game:1' }),
    docker('tool', { env: 'dev' }, { image: 'busybox@sha256:abc' }),
  ];
  t.same(names(await selectDockerTargets(targets, { ...base, monitorImageNames: ['nginx:.*', 'redis:7.*'] })), ['web', 'cache']);
  t.same(names(await selectDockerTargets(targets, { ...base, monitorImageNames: ['nginx'] })), [], 'untagged reads as :latest; anchored');
  t.same(names(await selectDockerTargets(targets, { ...base, monitorImageNames: ['127.0.0.1:5000/postgres:latest'] })), ['db'], 'a port is not a tag');
  t.same(names(await selectDockerTargets(targets, { ...base, skipImageNames: ['.*postgres:.*', 'ghcr.io/.*'] })), ['web', 'cache', 'tool']);
  t.same(names(await selectDockerTargets(targets, { ...base, enableContainersByLabel: ['env=prod', 'nothing='] })), ['db', 'game']);
  t.same(names(await selectDockerTargets(targets, { ...base, enableContainersByLabel: ['env='] })), ['db', 'game', 'tool'], 'key= : present');
  t.same(names(await selectDockerTargets(targets, { ...base, disableContainersByLabel: ['game-server='] })), ['web', 'cache', 'db', 'tool']);
  t.same(
    names(await selectDockerTargets(targets, { ...base, enableContainersByLabel: ['env=prod'], disableContainersByLabel: ['game-server=yes'] })),
    ['db'],
    'a disabled label wins over an enabled one',
  );
});
