// The agent's lean option entry (server/agent/options.ts, docs/fleet.md#footprint) against the full table
// (server/config/): for a set of inputs (flags, TIDEWATCH_* and Docker's variables, Watchtower aliases, secret
// files, the config file), whatever the lean table answers is what the full table answers, and what it leaves
// to the full one includes every input the full table refuses; `tidewatch agent` exits 2 with the same line
// through either entry (server/agent/main.ts, server/main.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { main as agentMain } from '../../server/agent/main.js';
import { agentTable, leanAgentSettings, TABLE_EXTERNAL_ENV } from '../../server/agent/options.js';
import { agentSettings, type AgentSettings } from '../../server/agent/settings.js';
import { builtinTable, ConfigError, resolveConfig } from '../../server/config/index.js';
import { main as serviceMain } from '../../server/main.js';

const dir = mkdtempSync(join(tmpdir(), 'tw-agent-options-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, '  enrol-from-file-0123456789\n');
const emptyFile = join(dir, 'empty');
writeFileSync(emptyFile, '');
const yamlFile = join(dir, 'agent.yaml');
writeFileSync(yamlFile, 'controller: wss://controller.example:8443\nagent-name: from-yaml\nagent_stage: 3\ndataDir: /data/agent\nlog-format: logfmt\n');
const jsonFile = join(dir, 'agent.json');
writeFileSync(jsonFile, JSON.stringify({ host: 'tcp://10.0.0.2:2376', tlsverify: true, 'cert-path': '/certs', controller: 'ws://127.0.0.1:8080' }));
const foreignFile = join(dir, 'foreign.yaml');
writeFileSync(foreignFile, 'controller: wss://c.example\ncleanup: true\n');
const badFile = join(dir, 'bad.yaml');
writeFileSync(badFile, 'controller: http://c.example\n');
const pluginsFile = join(dir, 'plugins.yaml');
writeFileSync(pluginsFile, 'controller: wss://c.example\nplugins: [./nowhere.js]\n');

interface Case {
  readonly name: string;
  readonly argv: string[];
  readonly env?: NodeJS.ProcessEnv;
  /** true: the lean table must answer it itself (the agent's usual configurations). */
  readonly lean?: boolean;
}

const DATA = ['--data-dir', '/data'];
const CASES: Case[] = [
  { name: 'flags', argv: ['--controller', 'wss://c.example:8443', '--enrol-token', 'tok-0123456789', '--agent-name', 'edge-1', '--agent-stage', '2', ...DATA], lean: true },
  { name: 'flags with =', argv: ['--controller=ws://127.0.0.1:8080', '--agent-stage=7', '--data-dir=/d', '--host=unix:///run/docker.sock'], lean: true },
  { name: 'short flags', argv: ['--controller', 'wss://c.example', '-H', 'tcp://10.0.0.9:2376', '-v', '--cert-path', '/certs', '-d', ...DATA], lean: true },
  { name: 'variables', argv: [], env: { TIDEWATCH_CONTROLLER: 'wss://c.example', TIDEWATCH_ENROL_TOKEN: 'tok-abcdefghij', TIDEWATCH_AGENT_NAME: 'n1', TIDEWATCH_DATA_DIR: '/data', TIDEWATCH_HEARTBEAT_FILE: '/tmp/hb' }, lean: true },
  { name: "Docker's variables", argv: ['--controller', 'wss://c.example', ...DATA], env: { DOCKER_HOST: 'tcp://10.0.0.3:2376', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' }, lean: true },
  { name: 'TIDEWATCH_HOSTS over DOCKER_HOST', argv: ['--controller', 'wss://c.example', ...DATA], env: { TIDEWATCH_HOSTS: 'unix:///a.sock', DOCKER_HOST: 'unix:///b.sock' }, lean: true },
  { name: 'flag over variable', argv: ['--agent-name', 'flag-name', '--controller', 'wss://c.example', ...DATA], env: { TIDEWATCH_AGENT_NAME: 'env-name' }, lean: true },
  { name: 'Watchtower aliases', argv: ['--controller', 'wss://c.example', ...DATA], env: { WATCHTOWER_DEBUG: 'true', WATCHTOWER_TRACE: 'false', WATCHTOWER_POLL_INTERVAL: '60' }, lean: true },
  { name: 'log settings', argv: ['--controller', 'wss://c.example', '--log-level', 'warning', '--log-format', 'json', '--trace', ...DATA], lean: true },
  { name: 'secret file by flag', argv: ['--controller', 'wss://c.example', '--enrol-token', tokenFile, ...DATA], lean: true },
  { name: 'secret file by variable', argv: ['--controller', 'wss://c.example', ...DATA], env: { TIDEWATCH_ENROL_TOKEN: tokenFile }, lean: true },
  { name: 'empty secret file', argv: ['--controller', 'wss://c.example', '--enrol-token', emptyFile, ...DATA], lean: true },
  { name: 'an absolute path with no file is the secret', argv: ['--controller', 'wss://c.example', '--enrol-token', join(dir, 'missing'), ...DATA], lean: true },
  { name: 'YAML config file', argv: ['--config', yamlFile], lean: true },
  { name: 'config file by variable, flags win', argv: ['--agent-name', 'flag-wins'], env: { TIDEWATCH_CONFIG: yamlFile }, lean: true },
  { name: 'JSON config file', argv: [...DATA], env: { TIDEWATCH_CONFIG: jsonFile }, lean: true },
  { name: 'nothing given', argv: [], lean: true },
  { name: 'two hosts', argv: ['--controller', 'wss://c.example', '--host', 'unix:///a.sock', '--host', 'unix:///b.sock', ...DATA], lean: true },
  { name: 'DOCKER_API_VERSION (a connection option the agent does not use)', argv: ['--controller', 'wss://c.example', ...DATA], env: { DOCKER_API_VERSION: '1.43' }, lean: true },
  { name: 'NO_COLOR presence', argv: ['--controller', 'wss://c.example', ...DATA], env: { NO_COLOR: '' }, lean: true },
  // Left to the full table:
  { name: "another plugin's flag", argv: ['--controller', 'wss://c.example', '--cleanup', ...DATA] },
  { name: "another plugin's variable", argv: ['--controller', 'wss://c.example', ...DATA], env: { TIDEWATCH_CLEANUP: 'true' } },
  { name: "another plugin's bad variable", argv: ['--controller', 'wss://c.example', ...DATA], env: { TIDEWATCH_STOP_TIMEOUT: 'soon' } },
  { name: "another plugin's external variable", argv: ['--controller', 'wss://c.example', ...DATA], env: { REPO_USER: 'me', REPO_PASS: 'pw' } },
  { name: "another plugin's key in the config file", argv: ['--config', foreignFile, ...DATA] },
  { name: 'plugins in the config file', argv: ['--config', pluginsFile, ...DATA] },
  { name: 'container names', argv: ['--controller', 'wss://c.example', 'nginx', ...DATA] },
  { name: 'unknown flag', argv: ['--controler', 'wss://c.example', ...DATA] },
  { name: 'unknown short flag', argv: ['-Z', ...DATA] },
  { name: 'bad controller', argv: ['--controller', 'ws://c.example:8080', ...DATA] },
  { name: 'controller with credentials', argv: ['--controller', 'wss://u:p@c.example', ...DATA] },
  { name: 'bad stage', argv: ['--controller', 'wss://c.example', '--agent-stage', '0', ...DATA] },
  { name: 'bad name', argv: ['--controller', 'wss://c.example', '--agent-name', '-x', ...DATA] },
  { name: 'bad host', argv: ['--controller', 'wss://c.example', '--host', 'ftp://x', ...DATA] },
  { name: 'bad tlsverify', argv: ['--controller', 'wss://c.example', ...DATA], env: { DOCKER_TLS_VERIFY: 'maybe' } },
  { name: 'boolean followed by a word', argv: ['--controller', 'wss://c.example', '--debug', 'false', ...DATA] },
  { name: 'flag without its value', argv: [...DATA, '--controller'] },
  { name: 'interval with schedule', argv: ['--controller', 'wss://c.example', '--interval', '5m', '--schedule', '@daily', ...DATA] },
  { name: 'bad value in the config file', argv: ['--config', badFile, ...DATA] },
  { name: 'missing config file', argv: ['--config', join(dir, 'nowhere.yaml'), ...DATA] },
  { name: '--plugins', argv: ['--plugins', './nowhere.js', '--controller', 'wss://c.example', ...DATA] },
  { name: '--help', argv: ['--help'] },
  { name: '--version', argv: ['--version'] },
  { name: '--health-check', argv: ['--health-check'] },
];

/** The full table's answer for an agent: its settings, or the exit-2 message. */
function full(c: Case): AgentSettings | string {
  try {
    return agentSettings(resolveConfig({ argv: c.argv, env: c.env ?? {}, cwd: dir }));
  } catch (err) {
    if (err instanceof ConfigError) return `error: ${err.message}`;
    throw err;
  }
}

t.test('the lean table answers as the full table, or leaves the input to it', async (t) => {
  for (const c of CASES) {
    const lean = leanAgentSettings({ argv: c.argv, env: c.env ?? {}, cwd: dir });
    const expected = full(c);
    if (c.lean === true) {
      t.ok(lean !== undefined, `${c.name}: answered by the lean table`);
      t.same(lean, expected, `${c.name}: the full table's values`);
    } else {
      t.equal(lean, undefined, `${c.name}: left to the full table (${typeof expected === 'string' ? expected : 'valid'})`);
    }
  }
  // The cases cover both kinds of full answers, so the comparison above can fail.
  const refused = CASES.filter((c) => typeof full(c) === 'string').length;
  t.ok(refused >= 12, `${refused} inputs the full table refuses`);
  const secret = leanAgentSettings({ argv: ['--enrol-token', tokenFile], env: {}, cwd: dir });
  t.equal(secret?.agent.enrolToken, 'enrol-from-file-0123456789', 'a secret file is read and trimmed');
  const yaml = leanAgentSettings({ argv: ['--config', yamlFile], env: {}, cwd: dir });
  t.same([yaml?.agent.controller, yaml?.agent.agentName, yaml?.agent.agentStage, yaml?.dataDir, yaml?.log.format], ['wss://controller.example:8443', 'from-yaml', 3, '/data/agent', 'logfmt']);
});

t.test("the lean table's declarations are the full table's own", async (t) => {
  const lean = agentTable();
  const table = builtinTable();
  t.ok(lean.entries.length >= 20, `${lean.entries.length} options`);
  for (const { spec } of lean.entries) {
    const same = table.byFlag(spec.flag)?.spec;
    t.ok(same !== undefined, `--${spec.flag} is in the full table`);
    t.equal(same?.parse, spec.parse, `--${spec.flag}: the same parser`);
    t.same(same, spec, `--${spec.flag}: the same declaration`);
  }
  for (const flag of ['controller', 'enrol-token', 'agent-name', 'agent-stage', 'host', 'tlsverify', 'cert-path', 'data-dir', 'log-level', 'config']) {
    t.ok(lean.byFlag(flag), `--${flag} is read by the lean table`);
  }
});

t.test('every un-prefixed variable of the full table is listed, so setting one for another option defers', async (t) => {
  const external = table().entries.flatMap((e) => (e.spec.externalEnv === undefined ? [] : [e.spec.externalEnv]));
  t.ok(external.length >= 5);
  t.same(external.filter((name) => !TABLE_EXTERNAL_ENV.includes(name)), [], 'TABLE_EXTERNAL_ENV in server/agent/options.ts');
  function table() {
    return builtinTable();
  }
});

/** Runs an entry as bin/tidewatch.js does and returns its exit code and stderr. */
async function exit(entry: typeof agentMain, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const sink = (write: (s: string) => void) => new Writable({ write: (chunk, _enc, done) => (write(String(chunk)), done()) });
  const code = await entry({ argv: ['agent', ...argv], env, cwd: dir, stdout: sink(() => {}), stderr: sink((s) => (stderr += s)) });
  return { code, stderr };
}

t.test('tidewatch agent exits 2 with the same line through either entry', async (t) => {
  const refused: [string, string[], NodeJS.ProcessEnv?][] = [
    ['no controller (the agent\'s own check)', [...DATA]],
    ['no data directory (the agent\'s own check)', ['--controller', 'wss://c.example']],
    ['two hosts (the agent\'s own check)', ['--controller', 'wss://c.example', '-H', 'unix:///a', '-H', 'unix:///b', ...DATA]],
    ['bad controller', ['--controller', 'ws://c.example', ...DATA]],
    ['bad stage from a variable', [...DATA], { TIDEWATCH_CONTROLLER: 'wss://c.example', TIDEWATCH_AGENT_STAGE: 'two' }],
    ['unknown flag', ['--nope', ...DATA]],
    ["another plugin's bad variable", ['--controller', 'wss://c.example', ...DATA], { TIDEWATCH_INTERVAL: 'often' }],
    ['container names', ['--controller', 'wss://c.example', 'nginx', ...DATA]],
    ['secret never echoed', ['--controller', 'wss://c.example', '--enrol-token', 'S3CRET-value-0123', '--agent-stage', 'x', ...DATA]],
  ];
  for (const [name, argv, env] of refused) {
    const lean = await exit(agentMain, argv, env);
    const service = await exit(serviceMain, argv, env);
    t.equal(lean.code, 2, `${name}: exit 2`);
    t.same(lean, service, `${name}: ${service.stderr.trim()}`);
    t.match(lean.stderr, /^tidewatch: [^\n]+\n$/, `${name}: one line`);
    t.notMatch(lean.stderr, /S3CRET/, `${name}: no secret in it`);
  }
});
