// Every example a reader can copy from README.md and docs/ runs: each Tidewatch command line, each Compose
// service running Tidewatch and each notification URL written out in full goes through `tidewatch
// check-config` (docs/configuration.md#checking-a-configuration), which reads flags, variables and config
// files as the service does and exits 2 with the one line the service would print. An example that would
// not start fails here, naming the page and line.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse } from 'yaml';
import t from 'tap';
import { BUILTIN_SERVICES } from '../../plugins/notify/services/index.js';
import { main } from '../../server/main.js';
import { REPO_ROOT } from '../helpers/service.js';
import { commandExamples, composeExamples, composeService, notificationUrlExamples, shellCommands, tidewatchInvocation, type Example, PLACEHOLDER } from './examples.js';

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
  const given = example.argv.map(mounted);
  const argv = given[0] === 'check-config' ? given : ['check-config', ...given];
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

type ComposeFile = { services: Record<string, Record<string, unknown>> };
const EXAMPLE_FILES = ['examples/docker-compose.yml', 'examples/compose-tidewatch-native.yml'];
const exampleFile = (path: string) => parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as ComposeFile;
const tidewatchService = (file: ComposeFile) => Object.values(file.services).find((s) => /tidewatch/.test(String(s['image'])))!;

t.test('check-config starts nothing: no engine, broker or listener is contacted, no file written', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tw-check-config-data-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const res = await checkConfig({
    where: 'here',
    argv: ['--host', 'unix:///nonexistent/tidewatch/docker.sock', '--mqtt-url', 'mqtt://127.0.0.1:1', '--data-dir', dataDir,
      '--http-api-endpoints', 'all', '--http-api-token', 'tok-0123456789-main', '--http-api-events-token', 'tok-0123456789-events',
      '--notification-url', 'generic+http://127.0.0.1:1/hook'],
    env: {},
  });
  t.equal(res.code, 0, `nothing answers at those addresses, and it does not matter: ${res.stderr}`);
  t.same(readdirSync(dataDir), [], 'the data directory stays empty');
});

const commands = commandExamples(REPO_ROOT);
const compose = [
  ...composeExamples(REPO_ROOT),
  ...EXAMPLE_FILES.map((path) => ({ where: path, ...composeService(tidewatchService(exampleFile(path))) })),
];
const urls = notificationUrlExamples(REPO_ROOT, BUILTIN_SERVICES.flatMap((s) => s.schemes));

t.test('the pages hold examples of each kind', async (t) => {
  t.ok(commands.length >= 15, `${commands.length} command lines`);
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

t.test("the README's two commands, near the top, exactly as CI runs them", async (t) => {
  const top = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').slice(0, 30).join('\n');
  t.match(top, '```sh\nnpm ci && npm run demo\n```', 'try it');
  t.match(top, '```sh\nnpm test\n```', 'run the tests');
  t.match(readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8'), /npm test/, ".ci/run runs the README's test command");
});

t.test('Tidewatch restarts and gets time to stop in every example that runs it long', async (t) => {
  for (const path of EXAMPLE_FILES) {
    const service = tidewatchService(exampleFile(path));
    t.equal(service['restart'], 'unless-stopped', `${path}: a restart policy`);
    t.ok(service['stop_grace_period'], `${path}: stop_grace_period (docs/stopping.md)`);
  }
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const runs = commands.filter((e) => e.where.startsWith('README.md'));
  t.ok(runs.length >= 4, 'the README runs the image');
  for (const m of readme.matchAll(/^docker run -d (?:[^\n]*\\\n)*[^\n]*/gm)) {
    const words = shellCommands(m[0].replace(/\\\n/g, ' '))[0] ?? [];
    if (tidewatchInvocation(words)) t.match(m[0], '--restart unless-stopped', `README: ${m[0].slice(0, 60)}`);
  }
  const block = /```yaml\n(services:[\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const service = (parse(block) as ComposeFile).services['tidewatch'];
  t.match(service, { restart: 'unless-stopped', stop_grace_period: /./ }, "README's compose block");
});
