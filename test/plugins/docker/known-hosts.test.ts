// OpenSSH's known_hosts as Tidewatch reads it for ssh:// hosts (docs/ssh-hosts.md#the-known-hosts-rule): plain
// and hashed entries, `[host]:port`, wildcards and negation, `@revoked`, the key types, and the verdicts
// (known, unknown, changed, revoked). The real sshd and ssh-keygen side is test/e2e/ssh-hosts.test.ts.
import { createHmac, randomBytes } from 'node:crypto';
import t from 'tap';
import {
  blobType,
  entryMatches,
  fingerprint,
  hostKeyAlgorithms,
  keysFor,
  knownHostName,
  parseKnownHosts,
  verifyHostKey,
  wildcard,
} from '../../../plugins/docker/engine/ssh/known-hosts.js';

function sshString(value: Buffer | string): Buffer {
  const data = Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

/** A key blob in SSH wire format: its type, then random material (only the type is ever read). */
function blob(type: string): Buffer {
  const parts = type.startsWith('ecdsa-') ? [sshString(type), sshString(type.slice('ecdsa-sha2-'.length)), sshString(randomBytes(65))] : [sshString(type), sshString(randomBytes(32))];
  return Buffer.concat(parts);
}

const b64 = (key: Buffer) => key.toString('base64');

function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

t.test('the name a host is looked up under: bare on port 22, [host]:port otherwise, lower case', async (t) => {
  t.equal(knownHostName('Build-1.example', 22), 'build-1.example');
  t.equal(knownHostName('10.0.0.5', 2222), '[10.0.0.5]:2222');
  t.equal(knownHostName('fd00::5', 22), 'fd00::5');
});

t.test('plain, hashed and [host]:port entries of every key type', async (t) => {
  const ed = blob('ssh-ed25519');
  const rsa = blob('ssh-rsa');
  const ec = blob('ecdsa-sha2-nistp256');
  const ec384 = blob('ecdsa-sha2-nistp384');
  const other = blob('ssh-ed25519');
  const file = [
    '# a comment',
    '',
    `build-1.example,10.0.0.5 ssh-ed25519 ${b64(ed)} root@build-1`,
    `[10.0.0.5]:2222 ssh-rsa ${b64(rsa)}`,
    `${hashed('[127.0.0.1]:2022')} ecdsa-sha2-nistp256 ${b64(ec)}`,
    `${hashed('edge-2')} ecdsa-sha2-nistp384 ${b64(ec384)}`,
  ].join('\n');
  const known = parseKnownHosts(file);
  t.equal(known.entries.length, 4);
  t.equal(known.ignored, 0);

  t.equal(verifyHostKey(keysFor(known, 'build-1.example'), ed), 'known', 'a plain name');
  t.equal(verifyHostKey(keysFor(known, '10.0.0.5'), ed), 'known', 'the second name of a line');
  t.equal(verifyHostKey(keysFor(known, '[10.0.0.5]:2222'), rsa), 'known', '[host]:port');
  t.equal(verifyHostKey(keysFor(known, '[10.0.0.5]:2222'), ed), 'changed', 'the port 22 key does not vouch for another port');
  t.equal(verifyHostKey(keysFor(known, '[127.0.0.1]:2022'), ec), 'known', 'a hashed [host]:port entry');
  t.equal(verifyHostKey(keysFor(known, 'edge-2'), ec384), 'known', 'a hashed name');
  t.equal(verifyHostKey(keysFor(known, 'edge-3'), ec384), 'unknown', 'a hash names one host only');
  t.equal(verifyHostKey(keysFor(known, 'build-1.example'), other), 'changed', 'another key for a listed host');
  t.equal(verifyHostKey(keysFor(known, '[build-1.example]:2222'), ed), 'unknown', 'a name listed without a port is not listed for port 2222');
  t.equal(verifyHostKey(keysFor(known, 'nowhere'), ed), 'unknown');
});

t.test('wildcards and negation, as ssh matches patterns', async (t) => {
  const key = blob('ssh-ed25519');
  const known = parseKnownHosts(`*.lab.example,!vault.lab.example,node-?? ssh-ed25519 ${b64(key)}`);
  const [entry] = known.entries;
  if (!entry) throw new Error('no entry');
  t.ok(entryMatches(entry, 'web.lab.example'));
  t.ok(entryMatches(entry, 'WEB.LAB.EXAMPLE'.toLowerCase()));
  t.notOk(entryMatches(entry, 'vault.lab.example'), 'a negated pattern wins');
  t.ok(entryMatches(entry, 'node-07'));
  t.notOk(entryMatches(entry, 'node-7'), '? is exactly one character');
  t.notOk(entryMatches(entry, 'lab.example'));
  t.notOk(entryMatches(entry, 'webXlab.example'), 'a dot is a dot, not any character');
});

t.test('the wildcard match backtracks to the last star only, and stays fast on hostile patterns', async (t) => {
  t.ok(wildcard('*', ''));
  t.ok(wildcard('a*b*c', 'axxbyyc'));
  t.ok(wildcard('a*b*c', 'abbbc'));
  t.notOk(wildcard('a*b*c', 'abbbd'));
  t.ok(wildcard('[10.0.0.*]:2222', '[10.0.0.7]:2222'));
  t.notOk(wildcard('[10.0.0.*]:2222', '[10.0.0.7]:22'));
  t.ok(wildcard('??', 'ab'));
  t.notOk(wildcard('??', 'abc'));
  const started = process.hrtime.bigint();
  t.notOk(wildcard(`${'*a'.repeat(200)}b`, 'a'.repeat(5000)));
  t.ok(Number(process.hrtime.bigint() - started) / 1e6 < 2000, 'a pattern of many stars against a long name answers at once');
});

t.test('@revoked refuses a key even where another line lists it; @cert-authority lines are not host keys', async (t) => {
  const key = blob('ssh-ed25519');
  const ca = blob('ssh-ed25519');
  const known = parseKnownHosts([`host-a ssh-ed25519 ${b64(key)}`, `@revoked * ssh-ed25519 ${b64(key)}`, `@cert-authority *.example ssh-ed25519 ${b64(ca)}`].join('\n'));
  t.equal(known.ignored, 1, 'the @cert-authority line');
  t.equal(verifyHostKey(keysFor(known, 'host-a'), key), 'revoked');
  t.equal(verifyHostKey(keysFor(known, 'x.example'), ca), 'unknown', 'a CA key is not a host key');
});

t.test('damaged lines and unknown key types are ignored, never matched', async (t) => {
  const ed = blob('ssh-ed25519');
  const known = parseKnownHosts(
    [
      `host-a ssh-rsa ${b64(ed)}`, // the blob says ed25519, the line says rsa
      `host-a ssh-dss ${b64(blob('ssh-dss'))}`,
      `host-a ssh-ed25519 not*base64`,
      `host-a ssh-ed25519`,
      `|1|short|short ssh-ed25519 ${b64(ed)}`,
      `|2|${randomBytes(20).toString('base64')}|${randomBytes(20).toString('base64')} ssh-ed25519 ${b64(ed)}`,
      `@unknown-marker host-a ssh-ed25519 ${b64(ed)}`,
    ].join('\r\n'),
  );
  t.equal(known.entries.length, 0);
  t.equal(known.ignored, 7);
  t.equal(verifyHostKey(keysFor(known, 'host-a'), ed), 'unknown');
});

t.test('the host key algorithms offered are the listed types, RSA with its SHA-2 signatures first', async (t) => {
  const known = parseKnownHosts(
    [`h ssh-rsa ${b64(blob('ssh-rsa'))}`, `h ssh-ed25519 ${b64(blob('ssh-ed25519'))}`, `h ssh-ed25519 ${b64(blob('ssh-ed25519'))}`, `other ecdsa-sha2-nistp521 ${b64(blob('ecdsa-sha2-nistp521'))}`].join('\n'),
  );
  t.same(hostKeyAlgorithms(keysFor(known, 'h')), ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519']);
  t.same(hostKeyAlgorithms(keysFor(known, 'other')), ['ecdsa-sha2-nistp521']);
  t.same(hostKeyAlgorithms(keysFor(known, 'none')), []);
});

t.test('key blobs: their type and their fingerprint as ssh-keygen -l prints it', async (t) => {
  const key = blob('ssh-ed25519');
  t.equal(blobType(key), 'ssh-ed25519');
  t.equal(blobType(Buffer.from([0, 0, 0])), undefined);
  t.equal(blobType(Buffer.from([0, 0, 1, 0, 1])), undefined, 'a length past the end');
  t.match(fingerprint(key), /^SHA256:[A-Za-z0-9+/]{43}$/);
});
