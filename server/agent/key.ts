// The agent's identity (docs/fleet.md#enrolment): an Ed25519 key pair made at its first start in its data
// directory, the private key in a file of mode 0600 that only this agent reads, and a marker written once the
// controller accepted it, after which any enrol token still given is ignored.
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';

// node:fs and node:crypto through getBuiltinModule, not an ES import: Node's ES facade of a built-in module
// reads every export, fs.promises and crypto.webcrypto too, which load the promise API, streams, readline
// and WebCrypto into an idle agent (docs/fleet.md#footprint).
const { createPrivateKey, createPublicKey, generateKeyPairSync, sign } = process.getBuiltinModule('node:crypto');
const { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = process.getBuiltinModule('node:fs');

const KEY_FILE = 'agent-key.pem';
const ENROLLED_FILE = 'agent-enrolled.json';

export interface AgentKey {
  readonly publicKey: string;
  sign(data: Buffer): string;
}

function writePrivate(path: string, content: string): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, content, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** The agent's key from `dir`, made (mode 0600) when there is none. */
export function loadOrCreateKey(dir: string): AgentKey {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, KEY_FILE);
  let privateKey: KeyObject;
  if (existsSync(path)) {
    privateKey = createPrivateKey(readFileSync(path));
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${path} is not an Ed25519 key`);
    // A key readable by others is no proof of anything: tighten it rather than go on.
    chmodSync(path, 0o600);
  } else {
    const pair = generateKeyPairSync('ed25519');
    privateKey = pair.privateKey;
    writePrivate(path, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  }
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).toString('base64');
  return { publicKey, sign: (data) => sign(null, data, privateKey).toString('base64') };
}

/** Whether a controller accepted this key already (an enrol token is then never sent again). */
export function isEnrolled(dir: string): boolean {
  return existsSync(join(dir, ENROLLED_FILE));
}

export function markEnrolled(dir: string, controller: string, name: string): void {
  writePrivate(join(dir, ENROLLED_FILE), `${JSON.stringify({ controller, name, enrolled_at: new Date().toISOString() })}\n`);
}
