import t from 'tap';

import { envNames, OPTIONS, renderHelp } from '../../server/config/index.js';

const help = renderHelp();

t.test('every visible option is documented with its flag, short form and variables', async (t) => {
  for (const o of OPTIONS) {
    if (o.hidden === true) {
      t.notMatch(help, `--${o.name} `, `${o.name} is hidden`);
      continue;
    }
    const line = help.split('\n').find((l) => new RegExp(`--${o.name}( |$)`).test(l));
    t.ok(line, `--${o.name} listed`);
    if (o.short !== undefined) t.match(line, `-${o.short}, --${o.name}`, `${o.name} short form`);
    for (const v of envNames(o)) t.match(help, v, `${o.name}: ${v}`);
  }
});

t.test('groups, defaults and descriptions', async (t) => {
  for (const group of ['Scheduling and run mode:', 'Container selection:', 'Update behaviour:', 'Registry and Git:', 'Docker connection:', 'HTTP API:', 'Logging:', 'Plugins and configuration:']) {
    t.match(help, `\n${group}\n`, group);
  }
  t.match(help, /-i, --interval <duration> +Time between update runs/);
  t.match(help, /\[env: TIDEWATCH_INTERVAL, WATCHTOWER_POLL_INTERVAL; default: 24h0m0s\]/);
  t.match(help, /\[env: TIDEWATCH_STOP_TIMEOUT, WATCHTOWER_TIMEOUT; default: 30s\]/);
  t.match(help, /\[env: TIDEWATCH_HOSTS, DOCKER_HOST; default: unix:\/\/\/var\/run\/docker\.sock\]/);
  t.match(help, /\[env: TIDEWATCH_ENABLE_LIFECYCLE_HOOKS, WATCHTOWER_LIFECYCLE_HOOKS\]/);
  t.match(help, /\[env: TIDEWATCH_HTTP_API_TOKEN, WATCHTOWER_HTTP_API_TOKEN; secret\]/);
  t.match(help, /default: X-Forwarded-For/);
  t.match(help, /--use-compose-depends-on[^\n]*\n[^\n]*default: true/);
  t.match(help, /-h, --help/);
  t.match(help, /--version/);
  t.ok(help.endsWith('\n'));
});

t.test('the option table is consistent', async (t) => {
  const names = OPTIONS.map((o) => o.name);
  t.equal(new Set(names).size, names.length, 'unique names');
  const shorts = OPTIONS.flatMap((o) => (o.short === undefined ? [] : [o.short]));
  t.equal(new Set(shorts).size, shorts.length, 'unique short flags');
  t.notOk(shorts.includes('h'), '-h stays help');
  const vars = OPTIONS.flatMap((o) => envNames(o));
  t.equal(new Set(vars).size, vars.length, 'unique variables');
  for (const o of OPTIONS) {
    t.ok(o.description.length > 0, `${o.name} described`);
    t.equal(o.key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), o.name, `${o.key} ↔ ${o.name}`);
  }
  t.notMatch(renderHelp(), /accepted, not implemented|self-update-orchestrator/, 'no option in --help is accepted and ignored, nor the helper\'s internal flag');
  t.same(envNames(OPTIONS.find((o) => o.name === 'config')!), ['TIDEWATCH_CONFIG']);
  t.same(envNames(OPTIONS.find((o) => o.name === 'health-check')!), []);
});
