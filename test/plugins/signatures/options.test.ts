// The signatures plugin's options (docs/signatures.md#options): --cosign-key values cut into PEM blocks and
// paths, the key kinds cosign signs with accepted and others refused, and the rules between the options
// (each broken rule names its option; the server turns that into exit code 2).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError } from '../../../core/index.js';
import { signaturesPlugin } from '../../../plugins/signatures/index.js';
import { loadKey, verifiesWith } from '../../../plugins/signatures/keys.js';
import { parseKeyList, type SignatureOptionValues } from '../../../plugins/signatures/options.js';
import { makeKey, signWith } from '../../helpers/cosign.js';

const pem = (kind: 'ecdsa' | 'ed25519' | 'rsa') => makeKey(kind).pem;

t.test('--cosign-key values: inline PEM blocks and paths', async (t) => {
  const a = pem('ecdsa');
  const b = pem('ed25519');
  t.same(parseKeyList(`${a}\n/etc/keys/one.pub\n${b}`), [a.trim(), b.trim(), '/etc/keys/one.pub']);
  t.same(parseKeyList('/a.pub,/b.pub'), ['/a.pub', '/b.pub']);
  t.same(parseKeyList(''), []);
});

t.test('key kinds', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-keys-'));
  for (const kind of ['ecdsa', 'ed25519', 'rsa'] as const) {
    const key = makeKey(kind);
    const file = join(dir, `${kind}.pub`);
    writeFileSync(file, key.pem);
    const loaded = loadKey(file);
    t.match(loaded.kind, kind === 'ecdsa' ? 'ecdsa-p256' : kind, `${kind} from a file`);
    const data = Buffer.from('payload');
    t.ok(verifiesWith(loaded, data, signWith(key, data)), `${kind}: cosign's signature verifies`);
    t.notOk(verifiesWith(loaded, Buffer.from('other'), signWith(key, data)), `${kind}: not over other data`);
    t.notOk(verifiesWith(loaded, data, Buffer.from('garbage')), `${kind}: a malformed signature is just invalid`);
  }
  const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  t.equal(loadKey(p384).kind, 'ecdsa-p384');
  const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  t.throws(() => loadKey(k1), { code: 'TW_ERR_SIGNATURE_KEY', message: /unsupported elliptic curve secp256k1/ });
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  t.throws(() => loadKey(small), { message: /1024 bits is too short/ });
  t.throws(() => loadKey(join(dir, 'missing.pub')), { code: 'TW_ERR_SIGNATURE_KEY', message: /missing\.pub/ });
  const priv = makeKey('ecdsa').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  t.throws(() => loadKey(priv.replace(/PRIVATE KEY/g, 'PUBLIC KEY')), { code: 'TW_ERR_SIGNATURE_KEY' });
});

t.test('rules between the options', async (t) => {
  const base: SignatureOptionValues = { verify: 'off', keys: [], identity: '', identityRegexp: '', issuer: '', trustedRoot: '' };
  const label = (k: string) => `--${k}`;
  const check = (o: Partial<SignatureOptionValues>) => () => signaturesPlugin.check?.({ ...base, ...o }, label);
  const refused = (o: Partial<SignatureOptionValues>, option: string) => {
    try {
      check(o)();
      t.fail(`${JSON.stringify(o)} accepted`);
    } catch (err) {
      t.ok(err instanceof ConfigError, 'a configuration error (exit code 2)');
      t.equal((err as ConfigError).option, option, `names ${option}`);
    }
  };
  refused({ verify: 'enforce' }, 'cosign-key');
  refused({ verify: 'warn' }, 'cosign-key');
  refused({ identity: 'a@b.c', trustedRoot: '/r.json' }, 'cosign-issuer');
  refused({ identity: 'a@b.c', issuer: 'https://i' }, 'sigstore-trusted-root');
  refused({ identity: 'a@b.c', identityRegexp: 'a', issuer: 'https://i', trustedRoot: '/r' }, 'cosign-identity-regexp');
  refused({ identityRegexp: '(', issuer: 'https://i', trustedRoot: '/r' }, 'cosign-identity-regexp');
  refused({ verify: 'enforce', keys: ['not a key'] }, 'cosign-key');
  t.doesNotThrow(check({ verify: 'enforce', keys: [pem('rsa')] }));
  t.doesNotThrow(check({ verify: 'enforce', identity: 'a@b.c', issuer: 'https://i', trustedRoot: '/r.json' }));
  t.equal(signaturesPlugin.enabled?.(base), false, 'off without keys: not applied');
  t.equal(signaturesPlugin.enabled?.({ ...base, keys: [pem('ecdsa')] }), true, 'a key alone applies it (labels may turn it on)');
});
