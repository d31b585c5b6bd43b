// What embedders import: the core and every built-in plugin through the package's own exports
// (resolved against the compiled dist/, as an installed package would be).
import t from 'tap';

t.test('the core and each built-in plugin are importable by package name', async (t) => {
  const core = (await import('tidewatch')) as typeof import('../../core/index.js');
  t.type(core.createTidewatch, 'function');
  for (const [path, exportName, pluginName] of [
    ['tidewatch/plugins/docker', 'dockerPlugin', 'docker'],
    ['tidewatch/plugins/swarm', 'swarmPlugin', 'swarm'],
    ['tidewatch/plugins/registry', 'registryPlugin', 'registry'],
    ['tidewatch/plugins/git', 'gitPlugin', 'git'],
    ['tidewatch/plugins/no-pull', 'noPullPlugin', 'no-pull'],
    ['tidewatch/plugins/cooldown', 'cooldownPlugin', 'cooldown'],
    ['tidewatch/plugins/http-api', 'httpApiPlugin', 'http-api'],
    ['tidewatch/plugins/webhooks', 'webhooksPlugin', 'webhooks'],
  ] as const) {
    const mod = (await import(path)) as Record<string, { name?: string; apply?: unknown }>;
    t.equal(mod[exportName]?.name, pluginName, `${path} exports ${exportName}`);
    t.type(mod[exportName]?.apply, 'function');
  }
});
