// The people plugin (docs/people.md): personal API tokens, and single sign-on with OpenID Connect for the
// dashboard, each caller with a role. It provides PEOPLE, through which the HTTP API asks about a credential
// that is not its main token, and contributes /v1/tokens and /v1/auth/* on the API's registration point.
// The OpenID Connect client library loads only when an issuer is configured (docs/performance.md#footprint).
import { definePlugin } from '../../core/index.js';
import { apiServes } from '../../contracts/shared/api-endpoints.js';
import { checkPeopleOptions, peopleOptions } from './options.js';

export const PLUGIN_NAME = 'people';

export const peoplePlugin = definePlugin({
  name: PLUGIN_NAME,
  options: peopleOptions,
  check(options, label) {
    checkPeopleOptions(options, label);
  },
  async apply(core, options) {
    // PEOPLE is asked only by the HTTP API, and the routes are its: without the API the tokens, sessions and
    // routes stay unloaded (docs/plugins.md#loading-code-at-first-use).
    if (!apiServes(core)) return;
    const { startPeople } = await import('./start.js');
    await startPeople(core, options);
  },
});
export default peoplePlugin;
export { peopleOptions } from './options.js';
