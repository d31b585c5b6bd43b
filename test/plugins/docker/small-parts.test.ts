// The pure parts of replacement: aside names, monitor-only, hook settings, own-container docs/interface.md.
import t from 'tap';
import {
  isReplacementName,
  oldAsideName,
  parseOldAsideName,
  parseReplacedName,
  parseStagingName,
  replacedName,
  stagingName,
} from '../../../plugins/docker/replace/aside-names.js';
import { hookTimeoutMs, hookUser } from '../../../plugins/docker/replace/lifecycle-hooks.js';
import { isMonitorOnly } from '../../../core/index.js';
import { ownership } from '../../../plugins/docker/self/update.js';
import { statusFilter } from '../../../plugins/docker/discovery.js';
import { resolvePluginOptions } from '../../../core/plugin.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import { fakeTarget } from '../../helpers/targets.js';

const ID = '0123456789abcdef'.repeat(4);

t.test('aside names round-trip and carry the running state', async (t) => {
  t.same(parseOldAsideName(oldAsideName('my-app', ID, true)), { originalName: 'my-app', shortId: '0123456789ab', wasRunning: true });
  t.same(parseOldAsideName(`/${oldAsideName('a--b', ID, false)}`), { originalName: 'a--b', shortId: '0123456789ab', wasRunning: false });
  t.equal(parseStagingName(stagingName('my-app', ID))?.originalName, 'my-app');
  t.equal(parseReplacedName(replacedName('my-app', ID))?.originalName, 'my-app');
  t.ok(isReplacementName(stagingName('x', ID)));
  t.notOk(isReplacementName('my-app'));
  t.notOk(isReplacementName('my-app--tidewatch-old-xyz-running'));
});

t.test('monitor-only: OR by default, a present label wins with precedence, empty is false', async (t) => {
  const target = (value?: string) => fakeTarget('x', { labels: value === undefined ? {} : { 'tidewatch.monitor-only': value } });
  const or = { monitorOnly: false, labelTakePrecedence: false };
  t.ok(isMonitorOnly(target('true'), or));
  t.notOk(isMonitorOnly(target(), or));
  t.ok(isMonitorOnly(target('false'), { ...or, monitorOnly: true }), 'OR: the option wins over a false label');
  t.notOk(isMonitorOnly(target('false'), { monitorOnly: true, labelTakePrecedence: true }));
  t.notOk(isMonitorOnly(target(''), { monitorOnly: true, labelTakePrecedence: true }), 'empty counts as false');
  t.ok(isMonitorOnly(target('junk'), { monitorOnly: true, labelTakePrecedence: true }), 'unparsable counts as unset');
});

t.test('hook timeouts and users', async (t) => {
  t.equal(hookTimeoutMs({}, 'pre-update'), 60_000);
  t.equal(hookTimeoutMs({ 'tidewatch.lifecycle.pre-update-timeout': '5' }, 'pre-update'), 300_000);
  t.equal(hookTimeoutMs({ 'com.centurylinklabs.watchtower.lifecycle.post-update-timeout': '0' }, 'post-update'), undefined);
  t.equal(hookTimeoutMs({ 'tidewatch.lifecycle.pre-update-timeout': 'soon' }, 'pre-update'), 60_000, 'invalid: 1 minute');
  t.equal(hookTimeoutMs({ 'tidewatch.lifecycle.pre-check-timeout': '9' }, 'pre-check'), 60_000, 'check hooks: fixed');
  t.equal(hookUser({}, { uid: 0, gid: 0 }), '');
  t.equal(hookUser({}, { uid: 1000, gid: 0 }), '1000');
  t.equal(hookUser({ 'tidewatch.lifecycle.gid': '50' }, { uid: 1000, gid: 0 }), '1000:50');
  t.equal(hookUser({ 'tidewatch.lifecycle.uid': 'root' }, { uid: 7, gid: 0 }), '7', 'invalid label: the default');
});

t.test('own container: by id; unknown only for a labelled target inside a container', async (t) => {
  const labelled = fakeTarget('tw', { id: 'abc', isSelf: true });
  t.equal(ownership(labelled, 'abc', true), 'own');
  t.equal(ownership(labelled, 'def', true), 'other');
  t.equal(ownership(labelled, undefined, true), 'unknown');
  t.equal(ownership(labelled, undefined, false), 'other');
  t.equal(ownership(fakeTarget('plain'), undefined, true), 'other');
});

t.test('status filters and defaults', async (t) => {
  t.same(statusFilter({ includeStopped: false, includeRestarting: false }), ['running']);
  t.same(statusFilter({ includeStopped: true, includeRestarting: true }), ['running', 'created', 'exited', 'restarting']);
  // The declarations' defaults, the same for an embedder as for the command line (one declaration).
  const options = resolvePluginOptions(dockerPlugin, {});
  t.match(options, { host: ['unix:///var/run/docker.sock'], stopTimeoutMs: 30_000, gracePeriodMs: 10_000, selfUpdate: true, useComposeDependsOn: true });
  t.equal(resolvePluginOptions(dockerPlugin, { host: 'unix:///x.sock' }).host, 'unix:///x.sock', 'an embedder may pass one host');
  t.same(resolvePluginOptions(dockerPlugin, { host: ['unix:///x.sock', 'tcp://127.0.0.1:2376'] }).host, ['unix:///x.sock', 'tcp://127.0.0.1:2376'], 'or several');
  t.throws(() => resolvePluginOptions(dockerPlugin, { authFor: 'nope' }), /unknown option "authFor"/, 'credentials come from a service, not an option');
});

t.test('the ephemeral self-update helper reaches the engine as the old container does, and nothing more', async (t) => {
  const { orchestratorCreateOptions } = await import('../../../plugins/docker/self/ephemeral.js');
  const old = {
    Id: ID,
    Config: { Env: ['DOCKER_HOST=tcp://proxy:2375', 'TIDEWATCH_ORCHESTRATOR_OLD_ID=stale'], User: '1000:1000' },
    HostConfig: {
      Binds: ['/var/run/docker.sock:/var/run/docker.sock:ro', 'data:/data'],
      PortBindings: { '8080/tcp': [{ HostPort: '8080' }] },
      NetworkMode: 'proxy-net',
      GroupAdd: ['998'],
    },
  } as unknown as Parameters<typeof orchestratorCreateOptions>[0];
  const options = orchestratorCreateOptions(old, 'reg/tidewatch:2', 'sha256:new');
  t.same(options.Cmd, ['--self-update-orchestrator']);
  t.same(options.Env, [
    'DOCKER_HOST=tcp://proxy:2375',
    `TIDEWATCH_ORCHESTRATOR_OLD_ID=${ID}`,
    'TIDEWATCH_ORCHESTRATOR_NEW_IMAGE_ID=sha256:new',
    'TIDEWATCH_ORCHESTRATOR_NEW_IMAGE=reg/tidewatch:2',
  ]);
  t.equal(options.Labels?.['com.centurylinklabs.watchtower.ephemeral-orchestrator'], 'true', "the fork's label");
  t.equal(options.Labels?.['tidewatch'], 'false', 'not marked as a Tidewatch instance, which the image label says');
  t.same(options.HostConfig, { AutoRemove: true, Binds: ['/var/run/docker.sock:/var/run/docker.sock:ro'], NetworkMode: 'proxy-net', GroupAdd: ['998'] }, 'no ports, no data volume');
  t.equal(options.User, '1000:1000');
});
