// What the demo prints once everything runs: where to look, the tokens, and three commands to try.
// test/demo/demo.test.ts reads the `Dashboard:`, `API token:` and `DOCKER_HOST=` lines: keep their form.
import { apiUrl, dockerHost, type DemoConfig } from './config.js';
import { DEMO_CONTAINERS, tagOf } from './fleet.js';

/** `pending`: the containers the check at start found an update for (docs/demo.md#the-first-look). */
export function banner(config: DemoConfig, pending: number): string {
  const url = apiUrl(config);
  const auth = `-H "Authorization: Bearer ${config.token}"`;
  const width = Math.max(...DEMO_CONTAINERS.map((c) => c.name.length));
  return [
    '',
    'Tidewatch demo is running: a private Docker Engine and registry, five containers, and Tidewatch.',
    '',
    ...DEMO_CONTAINERS.map((c) => `  ${c.name.padEnd(width)}  ${c.repo}:${tagOf(c, c.version)} ${c.version}${c.newer ? ` (${c.newer} pushed)` : ''}: ${c.role}`),
    '',
    `Checked at start: ${pending} containers with an update waiting.`,
    '',
    `  Dashboard:     ${url}/ui/`,
    // The tokens ride in the fragment, which the browser never sends; the page moves them to its session
    // storage and drops them from the address bar and history (docs/demo.md#signing-in).
    `  Signed in:     ${url}/ui/#token=${config.token}&events-token=${config.eventsToken}`,
    `  API token:     ${config.token}`,
    `  Events token:  ${config.eventsToken}   (optional in the dashboard: its live feed)`,
    `  Swagger:       ${url}/swagger/index.html`,
    '',
    'Try:',
    `  curl -s -X POST ${auth} ${url}/v1/check          # what has a newer image`,
    `  curl -s -X POST ${auth} ${url}/v1/update         # replace those containers`,
    `  DOCKER_HOST=${dockerHost(config)} docker ps       # the demo's engine`,
    '',
    'Ctrl-C stops Tidewatch, removes the containers and takes the demo engine and registry down.',
    '',
  ].join('\n');
}
