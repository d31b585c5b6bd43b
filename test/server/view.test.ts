import t from 'tap';

import { configView, OPTIONS, resolveConfig } from '../../server/config/index.js';

const TOKEN = 'main-t0ken-SECRET';
const EVENTS = 'events-t0ken-SECRET';

t.test('every option with a snake_case key; defaults in Go form', async (t) => {
  const view = configView(resolveConfig({ argv: [], env: {}, cwd: '/' }));
  t.same(Object.keys(view), OPTIONS.map((o) => o.name.replace(/-/g, '_')));
  t.equal(view.interval, '24h0m0s');
  t.equal(view.stop_timeout, '30s');
  t.equal(view.http_api_check_timeout, '5m0s');
  t.equal(view.http_api_update_timeout, '10m0s');
  t.equal(view.cooldown_delay, '0s');
  t.equal(view.http_api_port, 8080);
  t.same(view.http_api_endpoints, []);
  t.equal(view.http_api_token, '');
  t.equal(view.http_api_events_token, '');
  t.equal(view.git_token, '');
  t.same(view.notification_url, []);
  t.equal(view.cleanup, false);
  t.equal(view.use_compose_depends_on, true);
  t.same(view.host, ['unix:///var/run/docker.sock']);
});

t.test('effective values, secrets redacted', async (t) => {
  const resolved = resolveConfig({
    argv: ['--http-api-endpoints', 'all', '--http-api-token', TOKEN, '-c', '--interval', '90m', 'web'],
    env: {
      TIDEWATCH_HTTP_API_EVENTS_TOKEN: EVENTS,
      WATCHTOWER_NOTIFICATION_URL: `slack://${TOKEN}@x`,
      WATCHTOWER_NOTIFICATION_GOTIFY_TOKEN: TOKEN,
      TIDEWATCH_GIT_TOKEN: TOKEN,
      TIDEWATCH_COOLDOWN_DELAY: '3d12h',
    },
    cwd: '/',
  });
  const view = configView(resolved);
  const json = JSON.stringify(view);
  t.notMatch(json, TOKEN);
  t.notMatch(json, EVENTS);
  t.equal(view.http_api_token, '<redacted>');
  t.equal(view.http_api_events_token, '<redacted>');
  t.equal(view.git_token, '<redacted>');
  t.equal(view.notification_url, '<redacted>');
  t.equal(view.notification_gotify_token, '<redacted>');
  t.equal(view.notification_email_server_password, '');
  t.equal(view.interval, '1h30m0s');
  t.equal(view.cooldown_delay, '84h0m0s');
  t.equal(view.cleanup, true);
  t.same(view.http_api_endpoints, ['agents', 'approvals', 'audit', 'check', 'config', 'containers', 'dashboard', 'events', 'health', 'history', 'hooks', 'images', 'metrics', 'rollback', 'rollouts', 'snapshots', 'swagger', 'tokens', 'update']);
  t.equal(JSON.parse(json).http_api_port, 8080, 'JSON-serialisable');

  // The view is a copy: changing it leaves the configuration alone.
  (view.http_api_endpoints as string[]).push('x');
  t.equal((resolved.config.httpApiEndpoints as string[]).length, 19);
});
