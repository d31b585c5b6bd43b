// The HTTP API with every route it can serve: every endpoint on, and the routes the state, agents, policies,
// rollouts, webhooks and people plugins contribute. The roles table and the browser-origin rule are both held
// against this whole set (docs/http-api.md#roles, docs/security.md#threat-model).
import { createTidewatch, type Tidewatch } from '../../../../core/index.js';
import { agentsPlugin } from '../../../../plugins/agents/index.js';
import { createHttpApiPlugin, ENDPOINTS } from '../../../../plugins/http-api/index.js';
import { peoplePlugin } from '../../../../plugins/people/index.js';
import { policiesPlugin } from '../../../../plugins/policies/index.js';
import { rolloutsPlugin } from '../../../../plugins/rollouts/index.js';
import { statePlugin } from '../../../../plugins/state/index.js';
import { webhooksPlugin } from '../../../../plugins/webhooks/index.js';
import { memoryLogger } from '../../../helpers/memory-logger.js';
import { EVENTS_TOKEN, TOKEN } from './harness.js';

export async function apiWithEveryRoute(): Promise<{ tw: Tidewatch; api: ReturnType<typeof createHttpApiPlugin> }> {
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
  return { tw, api };
}
