// The declarations' schemas are checked without ajv (docs/performance.md#memory): for every option of every
// built-in plugin, the own check must say what ajv says, valid or not and in the same words, for values of
// every kind; and a schema with another keyword still goes to ajv.
import { Ajv } from 'ajv';
import t from 'tap';
import { definePlugin, errors, isTidewatchError, option } from '../../core/index.js';
import type { JsonSchema } from '../../core/option.js';
import { resolvePluginOptions } from '../../core/plugin.js';
import { isSimpleSchema, simpleSchemaProblems } from '../../core/option-schema.js';
import { builtinPlugins } from '../../server/builtins.js';
import { servicePlugin } from '../../server/config/service-options.js';

const VALUES: unknown[] = [
  true, false, '', 'x', 'v1.41', 'tidewatch', '0.0.0.0', 'linux/amd64', 'https://example.test', 'ftp://x', 'bogus', 'all',
  0, 1, -1, 1.5, 65_536, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60,
  [], ['a'], ['a', 'a'], ['check', 'update'], ['check', 'check'], [1], [''], null, {}, { a: 1 },
];

t.test('for every built-in declaration, the own check answers as ajv does', async (t) => {
  const ajv = new Ajv({ allErrors: true, coerceTypes: false });
  let compared = 0;
  for (const plugin of [servicePlugin, ...builtinPlugins()]) {
    for (const [key, spec] of Object.entries(plugin.options ?? {})) {
      if (!isSimpleSchema(spec.schema)) continue;
      const validate = ajv.compile(spec.schema as JsonSchema);
      for (const value of VALUES) {
        const ours = simpleSchemaProblems(spec.schema, value, key);
        const valid = validate(value);
        const theirs = (validate.errors ?? []).map((e) => `${key}${e.instancePath} ${e.message ?? ''}`);
        if (valid !== (ours.length === 0) || (!valid && ours.join('; ') !== theirs.join('; ').replace(/ \(items ## \d+ and \d+ are identical\)/, ''))) {
          t.fail(`${plugin.name}.${key} with ${JSON.stringify(value)}: ours ${JSON.stringify(ours)}, ajv ${JSON.stringify(theirs)}`);
        }
        compared++;
      }
    }
  }
  t.ok(compared > 1000, `compared ${compared} answers`);
});

t.test('resolvePluginOptions: unknown options, wrong values, and a custom schema left to ajv', async (t) => {
  const options = {
      port: option.integer({ flag: 'schema-port', default: 80, max: 65535, description: 'a port', group: 'test' }),
      names: option.list({ flag: 'schema-names', description: 'names', group: 'test' }),
      shape: option.custom<Record<string, number>>({
        flag: 'schema-shape', kind: 'string', default: {}, parse: () => ({}), description: 'an object', group: 'test',
        schema: { type: 'object', additionalProperties: { type: 'integer' } },
      }),
  };
  const plugin = definePlugin({ name: 'schema-check', options, apply() {} });
  const failure = (given: unknown) => {
    try {
      resolvePluginOptions(plugin, given);
    } catch (err) {
      t.ok(isTidewatchError(err, errors.pluginOptions));
      return (err as Error).message;
    }
    return undefined;
  };
  t.equal(isSimpleSchema(options.shape.schema), false, 'an object schema is not one of the simple shapes');
  t.match(failure({ prot: 1 }), /unknown option "prot"/);
  t.match(failure({ port: 70_000 }), /port must be <= 65535/);
  t.match(failure({ names: ['a', 2] }), /names\/1 must be string/);
  t.match(failure({ shape: { a: 'x' } }), /shape\/a must be integer/, 'ajv checked the custom schema');
  t.same(resolvePluginOptions(plugin, { port: 8080 }), { port: 8080, names: [], shape: {} });

  const simplePlugin = definePlugin({ name: 'simple', options: { port: options.port }, apply() {} });
  t.match(
    (() => {
      try {
        resolvePluginOptions(simplePlugin, { port: 1.5, extra: true });
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })(),
    /port must be integer; unknown option "extra"|unknown option "extra"; port must be integer/,
    'every problem is named',
  );
});
