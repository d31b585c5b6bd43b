// Credential lookup: config.json (auth, identitytoken), credsStore and credHelpers through helper
// scripts on PATH, REPO_USER/REPO_PASS, Docker Hub's keys, and registryAuthFor for the engine's pull.
import t from 'tap';
import { CredentialStore, registryAuthFor } from '../../../plugins/registry/credentials.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDockerConfigDir, normaliseRegistryKey, parseDockerConfig } from '../../../plugins/registry/docker-config.js';
import { basicAuth, configDir, installHelper } from './cred-fixtures.js';

t.test('registry keys normalise like the docker CLI', async (t) => {
  for (const key of ['https://index.docker.io/v1/', 'index.docker.io', 'docker.io', 'registry-1.docker.io', 'https://index.docker.io/v1']) {
    t.equal(normaliseRegistryKey(key), 'docker.io', key);
  }
  t.equal(normaliseRegistryKey('http://127.0.0.1:5102/v2/'), '127.0.0.1:5102');
  t.equal(normaliseRegistryKey('GHCR.io'), 'ghcr.io');
});

t.test('where config.json is read: $DOCKER_CONFIG, else /config.json as Watchtower, else ~/.docker', async (t) => {
  const only = (...paths: string[]) => (path: string) => paths.includes(path);
  t.equal(defaultDockerConfigDir({ DOCKER_CONFIG: '/etc/creds' }, only('/config.json')), '/etc/creds', 'DOCKER_CONFIG wins');
  t.equal(defaultDockerConfigDir({}, only('/config.json')), '/', "Watchtower's mount at /config.json");
  t.equal(defaultDockerConfigDir({ DOCKER_CONFIG: '' }, only('/config.json')), '/', 'an empty DOCKER_CONFIG is unset');
  t.equal(defaultDockerConfigDir({}, only()), join(homedir(), '.docker'), 'the docker CLI default on a host');
});

t.test('config.json auths: base64 auth, identitytoken, legacy username/password, junk ignored', async (t) => {
  const config = parseDockerConfig(
    JSON.stringify({
      auths: {
        'https://index.docker.io/v1/': { auth: basicAuth('hubuser', 'hub:pass') },
        'reg.example:5000': { auth: basicAuth('tok', 'x'), identitytoken: 'refresh-1' },
        'old.example': { username: 'u', password: 'p' },
        'empty.example': {},
        'bad.example': { auth: 'bm9jb2xvbg==' },
      },
      credHelpers: { 'gcr.io': 'gcloud' },
      credsStore: 'desktop',
    }),
  );
  t.same(config.auths.get('docker.io'), { username: 'hubuser', password: 'hub:pass' });
  t.same(config.auths.get('reg.example:5000'), { username: 'tok', identityToken: 'refresh-1' });
  t.same(config.auths.get('old.example'), { username: 'u', password: 'p' });
  t.notOk(config.auths.has('empty.example'));
  t.notOk(config.auths.has('bad.example'));
  t.equal(config.credHelpers.get('gcr.io'), 'gcloud');
  t.equal(config.credsStore, 'desktop');
});

t.test('lookup order: credHelpers, credsStore, auths, then REPO_USER/REPO_PASS', async (t) => {
  const store = installHelper('tw-store', { 'store.example': { Username: 'su', Secret: 'sp' } });
  const per = installHelper('tw-per', {
    'per.example': { Username: 'pu', Secret: 'pp' },
    'https://index.docker.io/v1/': { Username: '<token>', Secret: 'hub-refresh' },
  });
  const dir = configDir({
    auths: { 'file.example': { auth: basicAuth('fu', 'fp') }, 'store.example': {} },
    credsStore: store.name,
    credHelpers: { 'per.example': per.name, 'docker.io': per.name },
  });
  const creds = new CredentialStore({ dockerConfigDir: dir, repoUser: 'ru', repoPass: 'rp' });
  t.match(await creds.lookup('per.example'), { username: 'pu', password: 'pp', source: 'docker-credential-tw-per' });
  t.match(await creds.lookup('docker.io'), { identityToken: 'hub-refresh' });
  t.match(await creds.lookup('store.example'), { username: 'su', password: 'sp', source: 'docker-credential-tw-store' });
  // The store has nothing for file.example: the file's entry is used.
  t.match(await creds.lookup('file.example'), { username: 'fu', password: 'fp' });
  t.match(await creds.lookup('other.example'), { username: 'ru', password: 'rp', source: 'REPO_USER/REPO_PASS' });
  t.same(per.asked(), ['per.example', 'https://index.docker.io/v1/']);

  await creds.lookup('per.example');
  t.equal(per.asked().length, 2, 'helper answers are cached');
});

t.test('a failing helper is an error, not anonymous access', async (t) => {
  const dir = configDir({ credsStore: 'tw-does-not-exist' });
  const creds = new CredentialStore({ dockerConfigDir: dir });
  await t.rejects(creds.lookup('x.example'), /docker-credential-tw-does-not-exist failed/);
  const weird = configDir({ credsStore: '../evil' });
  await t.rejects(new CredentialStore({ dockerConfigDir: weird }).lookup('x.example'), /invalid helper name/);
});

t.test('no config.json and no fallback: anonymous', async (t) => {
  const creds = new CredentialStore({ dockerConfigDir: '/nonexistent/tidewatch' });
  t.equal(await creds.lookup('x.example'), undefined);
});

t.test('config.json changes are picked up', async (t) => {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = configDir({ auths: { 'a.example': { auth: basicAuth('one', '1') } } });
  const creds = new CredentialStore({ dockerConfigDir: dir });
  t.match(await creds.lookup('a.example'), { username: 'one' });
  await new Promise((r) => setTimeout(r, 20));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ auths: { 'a.example': { auth: basicAuth('second', '22') } } }));
  t.match(await creds.lookup('a.example'), { username: 'second' });
});

t.test('registryAuthFor gives the engine AuthConfig', async (t) => {
  const dir = configDir({
    auths: {
      'https://index.docker.io/v1/': { auth: basicAuth('hubuser', 'hubpass') },
      '127.0.0.1:5102': { identitytoken: 'refresh-2' },
    },
  });
  t.same(await registryAuthFor('nginx:latest', { dockerConfigDir: dir }), {
    username: 'hubuser',
    password: 'hubpass',
    serveraddress: 'https://index.docker.io/v1/',
  });
  t.same(await registryAuthFor('127.0.0.1:5102/a/b:1', { dockerConfigDir: dir }), {
    identitytoken: 'refresh-2',
    serveraddress: '127.0.0.1:5102',
  });
  t.same(await registryAuthFor('ghcr.io/o/r', { dockerConfigDir: dir, repoUser: 'r', repoPass: 's' }), {
    username: 'r',
    password: 's',
    serveraddress: 'ghcr.io',
  });
  t.equal(await registryAuthFor('quay.io/o/r', { dockerConfigDir: dir }), undefined);
});
