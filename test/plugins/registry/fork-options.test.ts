// The fork's two registry options: --registry-tls-min-version bounds the TLS a registry may offer, and
// --warn-on-head-failure decides when a HEAD without a digest (the GET after it costs a Docker Hub pull) warns.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RegistryClient } from '../../../plugins/registry/client.js';
import { Authorizer } from '../../../plugins/registry/auth.js';
import { CredentialStore } from '../../../plugins/registry/credentials.js';
import { RegistryTransport } from '../../../plugins/registry/transport.js';
import { parseImageReference } from '../../../core/index.js';
import { FakeRegistry } from './fake-registry.js';
import { emptyConfigDir } from './harness.js';
import { headFailureLogger } from '../../../plugins/registry/start.js';
import { memoryLogger } from '../../helpers/memory-logger.js';

function selfSignedCert(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'tidewatch-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
}

t.test('--registry-tls-min-version refuses a registry offering less', async (t) => {
  // A registry that speaks TLS 1.2 at most.
  const server = https.createServer({ ...selfSignedCert(), maxVersion: 'TLSv1.2' }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`);
  const send = async (tlsMinVersion: 'TLSv1.2' | 'TLSv1.3') => {
    const transport = new RegistryTransport({ concurrency: 1, timeoutMs: 5000, tlsSkip: true, tlsMinVersion });
    t.teardown(() => transport.close());
    return transport.send({ registry: url.host, url, method: 'GET' });
  };
  t.equal((await send('TLSv1.2')).status, 200, 'TLS 1.2 allowed: answered');
  await t.rejects(send('TLSv1.3'), 'TLS 1.3 required: the connection is refused');
});

t.test('--warn-on-head-failure: the client reports a HEAD that gave no digest', async (t) => {
  const reg = await new FakeRegistry({ headWithoutDigest: true }).start();
  t.teardown(() => reg.close());
  const digest = reg.push('demo/app', 'latest');
  const transport = new RegistryTransport({ concurrency: 1, timeoutMs: 5000, tlsSkip: false });
  t.teardown(() => transport.close());
  const credentials = new CredentialStore({ dockerConfigDir: emptyConfigDir() });
  const failures: [string, number][] = [];
  const client = new RegistryClient({
    transport,
    authorizer: new Authorizer(transport, credentials, false),
    tlsSkip: false,
    onHeadFailure: (ref, status) => failures.push([ref.repository, status]),
  });
  t.equal(await client.manifestDigest(parseImageReference(`${reg.host}/demo/app:latest`)), digest);
  t.same(failures, [['demo/app', 200]], 'told once, with the HEAD status');
});

t.test('--warn-on-head-failure: always, never, and auto (Docker Hub only) as the fork logs them', async (t) => {
  const levels = (mode: 'always' | 'never' | 'auto') => {
    const logger = memoryLogger();
    const log = headFailureLogger({ logger }, mode);
    log(parseImageReference('nginx:latest'), 405);
    log(parseImageReference('ghcr.io/x/y:1'), 405);
    return logger.lines.map((l) => l.level);
  };
  t.same(levels('auto'), ['warn', 'debug']);
  t.same(levels('always'), ['warn', 'warn']);
  t.same(levels('never'), ['debug', 'debug']);
});
