// core/declarations.ts is a part of the public surface, not a second one: every name it exports is exported by
// core/index.ts as the same binding, and it loads none of the core's engine (docs/fleet.md#footprint: the
// agent reads its options through it).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import * as declarations from '../../core/declarations.js';
import * as core from '../../core/index.js';

t.test('every name of core/declarations.ts is the same binding in core/index.ts', async (t) => {
  const names = Object.keys(declarations);
  t.ok(names.length >= 5, names.join(', '));
  for (const name of names) t.equal((core as Record<string, unknown>)[name], (declarations as Record<string, unknown>)[name], name);
});

t.test('loading it loads none of the engine modules', async (t) => {
  const script = `
    await import(${JSON.stringify(fileURLToPath(new URL('../../core/declarations.ts', import.meta.url)))});
    const { builtinModules } = await import('node:module');
    console.log(JSON.stringify(Object.keys(globalThis.__loaded ?? {})));`;
  // The modules a fresh process evaluated, as the loader's resolve hook saw them.
  const hook = `
    import { registerHooks } from 'node:module';
    globalThis.__loaded = {};
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); globalThis.__loaded[r.url] = 1; return r; } });`;
  const run = spawnSync(process.execPath, [...process.execArgv, '--import', `data:text/javascript,${encodeURIComponent(hook)}`, '--input-type=module', '-e', script], { encoding: 'utf8' });
  t.equal(run.status, 0, run.stderr);
  const loaded = (JSON.parse(run.stdout.trim().split('\n').pop() ?? '[]') as string[]).filter((url) => url.includes('/core/')).map((url) => url.replace(/.*\/core\//, ''));
  t.ok(loaded.includes('option.ts'), loaded.join(', '));
  for (const engine of ['index.ts', 'tidewatch.ts', 'hooks.ts', 'plugin.ts', 'update-run.ts']) t.notOk(loaded.includes(engine), `${engine} is not loaded`);
});
