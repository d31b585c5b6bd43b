import t from 'tap';
import {
  composeServices,
  containerDirectory,
  dependenciesOf,
  linkTarget,
  networkModeContainer,
  type DependencyFacts,
} from '../../../plugins/docker/dependencies.js';

function facts(name: string, overrides: Partial<DependencyFacts> = {}): DependencyFacts {
  return { id: name.padEnd(64, 'a').replace(/[^0-9a-f]/g, 'b'), name, labels: {}, links: [], networkMode: 'none', ...overrides };
}
const compose = (project: string, service: string, extra: Record<string, string> = {}) => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
  ...extra,
});
const opts = { useComposeDependsOn: true };

t.test('small parsers', async (t) => {
  t.same(composeServices('db:service_started:false,cache:service_healthy:true'), ['db', 'cache']);
  t.same(composeServices('db'), ['db']);
  t.equal(linkTarget('/db:/web/db'), 'db');
  t.equal(linkTarget('db:alias'), 'db');
  t.equal(networkModeContainer('container:vpn'), 'vpn');
  t.equal(networkModeContainer('bridge'), undefined);
});

t.test('the depends-on label wins, Tidewatch label over the Watchtower alias, self ignored', async (t) => {
  const web = facts('web', {
    labels: {
      'tidewatch.depends-on': 'db, /cache,web',
      'com.centurylinklabs.watchtower.depends-on': 'other',
      'com.docker.compose.depends_on': 'x:service_started:false',
    },
    links: ['/legacy:/web/legacy'],
  });
  t.same(dependenciesOf(web, containerDirectory([web]), opts), ['db', 'cache']);
  const wt = facts('wt', { labels: { 'com.centurylinklabs.watchtower.depends-on': 'other' } });
  t.same(dependenciesOf(wt, containerDirectory([wt]), opts), ['other']);
});

t.test('compose depends_on resolves services of the same project to container names', async (t) => {
  const db = facts('shop-db-1', { labels: compose('shop', 'db') });
  const otherDb = facts('blog-db-1', { labels: compose('blog', 'db') });
  const app = facts('shop-app-1', {
    labels: compose('shop', 'app', { 'com.docker.compose.depends_on': 'db:service_healthy:false,queue:service_started:true' }),
  });
  const dir = containerDirectory([db, otherDb, app]);
  t.same(dependenciesOf(app, dir, opts), ['shop-db-1', 'shop-queue'], 'unknown services fall back to <project>-<service>');
  t.same(dependenciesOf(app, dir, { useComposeDependsOn: false }), [], 'ignored when disabled');
});

t.test('links and network_mode container: are the last source', async (t) => {
  const db = facts('db');
  const vpn = facts('vpn', { id: 'c0ffee'.padEnd(64, '0') });
  const web = facts('web', { links: ['/db:/web/db'], networkMode: `container:${vpn.id}` });
  t.same(dependenciesOf(web, containerDirectory([db, vpn, web]), opts), ['db', 'vpn'], 'an id resolves to a name');
  const byName = facts('side', { networkMode: 'container:vpn' });
  t.same(dependenciesOf(byName, containerDirectory([vpn, byName]), opts), ['vpn']);
  const inProject = facts('p-web-1', { labels: compose('p', 'web'), links: ['/api:/p-web-1/api'] });
  const api = facts('p-api-1', { labels: compose('p', 'api') });
  t.same(dependenciesOf(inProject, containerDirectory([inProject, api]), opts), ['p-api-1'], 'a link names a service of the project');
});
