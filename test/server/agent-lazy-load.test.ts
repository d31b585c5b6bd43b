// What an idle agent loads (docs/fleet.md#footprint, issue 47), as test/server/lazy-load.test.ts holds the
// service's idle set: `tidewatch agent`, the built binary as a real process, connected to a real controller
// and having served that controller's check of its engine. For a plain ws:// controller it loads neither
// node:tls nor node:https (ws's client defers them, server/agent/ws-client.ts); for a wss:// controller
// (the controller's --http-api-tls-cert) it loads them and is online through that TLS, which is also what
// proves the agent still reaches a controller over TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import t, { type Test } from 'tap';
import { enrolToken, listAgents, startAgent, waitForAgent } from '../helpers/agents.js';
import { requireEnv, waitFor } from '../helpers/env.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'agent-lazy-load-token-0123456789';

interface Loaded {
  readonly builtins: string[];
  readonly packages: string[];
  /** The build's own modules, as paths under dist/. */
  readonly dist: string[];
}

/** A module run before the binary that writes, at exit, the built-in modules and packages the process loaded. */
function probe(dir: string): { flags: string[]; read: () => Loaded } {
  const out = join(dir, 'loaded.json');
  const file = join(dir, 'probe.mjs');
  writeFileSync(
    file,
    `import { registerHooks } from 'node:module';
     import { writeFileSync } from 'node:fs';
     const urls = [];
     registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
     process.on('exit', () => {
       const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
       const packages = [...new Set(urls.map((u) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(u)?.[1]).filter(Boolean))];
       const dist = urls.filter((u) => !u.includes('/node_modules/')).map((u) => /\\/dist\\/(.*)$/.exec(u)?.[1]).filter(Boolean);
       writeFileSync(${JSON.stringify(out)}, JSON.stringify({ builtins, packages, dist }));
     });`,
  );
  return { flags: ['--import', file], read: () => JSON.parse(readFileSync(out, 'utf8')) as Loaded };
}

/** A self-signed certificate for 127.0.0.1 (the controller's TLS; the agent trusts it by NODE_EXTRA_CA_CERTS). */
function certificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

/** An agent on the main engine, connected to a controller (over TLS with `tls`), idle after one check through it. */
async function idleAgent(t: Test, name: string, tls: boolean): Promise<Loaded> {
  const env = await requireEnv(t);
  if (!env) throw new Error('no test environment');
  const dir = mkdtempSync(join(tmpdir(), 'tw-agent-lazy-load-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const material = tls ? certificate(dir) : undefined;
  // This process asks the controller for the enrolment token and the check over its TLS too.
  if (material) setDefaultCACertificates([...getCACertificates('default'), readFileSync(material.cert, 'utf8')]);
  const controller = await startService([
    '--host', env.dockerHost, '--http-api-endpoints', 'agents,check', '--http-api-token', TOKEN, '--data-dir', join(dir, 'controller'),
    ...(material ? ['--http-api-tls-cert', material.cert, '--http-api-tls-key', material.key] : []),
  ]);
  t.teardown(() => controller.stop('SIGKILL'));
  t.match(controller.url, tls ? /^https:\/\/127\.0\.0\.1:/ : /^http:\/\/127\.0\.0\.1:/, 'the controller serves the scheme under test');
  const { flags, read } = probe(dir);
  const agent = startAgent({
    controller: controller.url.replace(/^http/, 'ws'), name, host: env.dockerHost, token: await enrolToken(controller.url, TOKEN, name),
    env: material ? { NODE_EXTRA_CA_CERTS: material.cert } : {}, nodeFlags: flags,
  });
  t.teardown(() => agent.stop('SIGKILL'));
  const online = await waitForAgent(controller.url, TOKEN, name, 'online');
  t.equal(online?.state, 'online', `${name} is online: ${JSON.stringify(agent.logs.slice(-3))}`);
  const checked = await call(`${controller.url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(checked.status, 200, 'the controller checked every host, the agent\'s engine through the tunnel');
  const seen = (await listAgents(controller.url, TOKEN)).find((a) => a.name === name);
  t.ok(seen?.engine_version && seen.containers !== null, `the agent's engine answered through it: ${JSON.stringify(seen)}`);
  t.equal(await agent.stop('SIGTERM'), 0, 'the agent stopped on SIGTERM');
  return await waitFor(() => read(), 5_000);
}

t.test('an idle agent on a ws:// controller loads no node:tls, node:https, http2 or zlib, no plugin runtime and no full option table', async (t) => {
  const { builtins, packages, dist } = await idleAgent(t, 'lean-ws', false);
  t.ok(builtins.includes('http') && builtins.includes('crypto'), 'the probe sees what it loaded: node:http (the forwarder) and node:crypto (its key)');
  t.ok(packages.includes('ws'), `ws speaks the protocol: ${packages.join(', ')}`);
  t.same(builtins.filter((m) => /^(tls|https|http2|_tls_wrap|zlib)$/.test(m) || m.startsWith('internal/deps/undici')), [], 'no TLS, no https, no http2, no zlib (no permessage-deflate), no bundled undici');
  // Its options come from the lean table (server/agent/options.ts): not the full one, the core's engine, nor any
  // plugin's declarations besides the few it reads.
  t.ok(dist.includes('server/agent/main.js') && dist.includes('server/agent/options.js'), `the agent's own entry: ${dist.join(', ')}`);
  const unneeded = dist.filter((p) => /^(core\/index|core\/tidewatch|core\/hooks|server\/main|server\/builtins|server\/config\/(builtin-table|index|resolve))\.js$|^plugins\/[a-z-]+\/index\.js$|^plugins\/docker\/options\.js$|^contracts\//.test(p));
  t.same(unneeded, [], 'no full option table, no core engine, no plugin declarations, no contracts');
  const heavy = ['dockerode', 'docker-modem', 'ssh2', 'fastify', '@fastify/', 'undici', 'mqtt', 'nodemailer', 'yaml', 'ajv', 'openid-client', 'pino'];
  t.same(packages.filter((p) => heavy.some((h) => p === h || p.startsWith(h))), [], `none of ${heavy.join(', ')}`);
});

t.test('an agent on a wss:// controller loads node:tls and is online through the controller\'s TLS', async (t) => {
  // The control case: the same listing sees TLS load when the URL asks for it, so the test above can fail.
  const { builtins } = await idleAgent(t, 'lean-wss', true);
  t.ok(builtins.includes('tls') && builtins.includes('https'), 'node:tls and node:https loaded for wss://');
});
