// Every example a reader can copy from README.md and docs/ runs: each Tidewatch command line, each Compose
// service running Tidewatch and each notification URL written out in full goes through `tidewatch
// check-config` (docs/configuration.md#checking-a-configuration), which reads flags, variables and config
// files as the service does and exits 2 with the one line the service would print. An example that would
// not start fails here, naming the page and line.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { BUILTIN_SERVICES } from '../../plugins/notify/services/index.js';
import { main } from '../../server/main.js';
import { REPO_ROOT } from '../helpers/service.js';
import { commandExamples, composeExamples, notificationUrlExamples, shellCommands, tidewatchInvocation, type Example, PLACEHOLDER } from './examples.js';

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += String(chunk); done(); } });
  return { stream, text: () => text };
}

/**
 * The secrets the examples mount (`/run/secrets/<name>`), as the reader would have them: a file of their own
 * holding what the page says it holds. The page's path is swapped for that file; nothing else changes.
 */
const secretsDir = mkdtempSync(join(tmpdir(), 'tw-examples-secrets-'));
t.teardown(() => rmSync(secretsDir, { recursive: true, force: true }));
function mounted(value: string): string {
  return value.replace(/\/run\/secrets\/([\w.-]+)/g, (_, name: string) => {
    const file = join(secretsDir, name);
    if (!existsSync(file)) writeFileSync(file, /mqtt/.test(name) ? 'mqtt://user:password@127.0.0.1:1883\n' : `${name}-${PLACEHOLDER}\n`);
    return file;
  });
}

async function checkConfig(example: Example): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const argv = ['check-config', ...example.argv.map(mounted)];
  const env = Object.fromEntries(Object.entries(example.env).map(([k, v]) => [k, mounted(v)]));
  const code = await main({ argv, env, cwd: REPO_ROOT, stdout: out.stream, stderr: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

t.test('the extraction reads command lines as a shell would', async (t) => {
  t.same(shellCommands(`npx tidewatch --a "x y" 'z' # comment`), [['npx', 'tidewatch', '--a', 'x y', 'z']]);
  t.same(shellCommands('npm ci && npx tidewatch --b $TOKEN'), [['npm', 'ci'], ['npx', 'tidewatch', '--b', PLACEHOLDER]]);
  t.same(
    tidewatchInvocation(['docker', 'run', '-d', '--restart', 'unless-stopped', '-e', 'TIDEWATCH_SCOPE=a', '-v', '/x:/y', 'ghcr.io/tidewatch/tidewatch:1', '--cleanup']),
    { argv: ['--cleanup'], env: { TIDEWATCH_SCOPE: 'a' } },
  );
  t.equal(tidewatchInvocation(['docker', 'run', '-d', 'nginx', '--cleanup']), undefined, 'another image is not an example');
});

t.test('check-config: exit 2 and the one line for a bad example, exit 0 and no secret for a good one', async (t) => {
  const bad = await checkConfig({ where: 'here', argv: ['--notification-url', 'slack://hook:T000/B000/XXXX'], env: {} });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^tidewatch: --notification-url: slack: [^\n]+\n$/);
  t.notMatch(bad.stderr, 'B000', 'the URL is never echoed');
  const good = await checkConfig({ where: 'here', argv: ['--http-api-endpoints', 'update', '--http-api-token', 'tok-0123456789-secret', '--interval', '6h'], env: {} });
  t.equal(good.code, 0, good.stderr);
  const report = JSON.parse(good.stdout) as { ok: boolean; config: Record<string, unknown>; schedule: string; warnings: string[] };
  t.equal(report.config['http_api_token'], '<redacted>');
  t.notMatch(good.stdout, 'tok-0123456789-secret');
  t.equal(report.schedule, 'every 6h0m0s');
});

const commands = commandExamples(REPO_ROOT);
const compose = composeExamples(REPO_ROOT);
const urls = notificationUrlExamples(REPO_ROOT, BUILTIN_SERVICES.flatMap((s) => s.schemes));

t.test('the pages hold examples of each kind', async (t) => {
  t.ok(commands.length >= 20, `${commands.length} command lines`);
  t.ok(compose.length >= 3, `${compose.length} Compose services`);
  t.ok(urls.length >= 4, `${urls.length} notification URLs`);
  t.ok(commands.some((e) => e.where.startsWith('README.md')), 'README.md commands are among them');
});

for (const [kind, examples] of [['command line', commands], ['Compose service', compose], ['notification URL', urls]] as const) {
  t.test(`every ${kind} passes check-config`, async (t) => {
    for (const example of examples) {
      const { code, stderr } = await checkConfig(example);
      t.equal(code, 0, `${example.where}: ${stderr.trim() || 'ok'}`);
    }
  });
}
