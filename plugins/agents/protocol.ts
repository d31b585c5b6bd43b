// The agent tunnel's handshake (docs/fleet.md#enrolment): JSON text messages before any stream opens.
//
//   controller → agent  {"type":"challenge","nonce":<32 random bytes, base64url>,"version"}
//   agent → controller  {"type":"hello","name","public_key":<Ed25519 SPKI DER, base64>,"signature","enrol_token"?,
//                        "stage","version"}
//   controller → agent  {"type":"welcome","calls":[<groups>]}  or  {"type":"refused","reason"} and close 4003
//
// The signature is Ed25519 over `tidewatch-agent-v1\n<nonce>\n<name>\n<public_key>`: a fresh nonce at every
// connection, so a recorded hello proves nothing later. The enrol token is sent only while the agent holds no
// enrolled key; the controller spends it, binding the name to the key. Later the allowed call groups may change
// (`{"type":"calls","calls":[…]}`) when the controller's mode does. Both sides check every field.
import type { KeyObject } from 'node:crypto';
// node:crypto loads with the first agent connection, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');
import { MAX_DATA } from './mux.js';
import { AGENT_NAME } from './options.js';

export const PROTOCOL = 'tidewatch-agent-v1';
/** A WebSocket message at most: one DATA frame and its header; handshake messages are far smaller. */
export const MAX_MESSAGE = MAX_DATA + 1024;
/** Largest handshake message accepted before the agent is known. */
export const MAX_HELLO = 4096;
/** Close codes (4000-4999 are the application's). */
export const CLOSE = { REFUSED: 4003, REVOKED: 4001, REPLACED: 4009, PROTOCOL: 4002 } as const;

// Agent names are declared with the options, which load without the protocol.
export { AGENT_NAME };

export interface Challenge {
  readonly type: 'challenge';
  readonly nonce: string;
  readonly version: string;
}

export interface Hello {
  readonly type: 'hello';
  readonly name: string;
  readonly public_key: string;
  readonly signature: string;
  readonly enrol_token?: string;
  readonly stage: number;
  readonly version: string;
}

export interface Welcome {
  readonly type: 'welcome';
  readonly calls: readonly string[];
}

export function newNonce(): string {
  return nodeCrypto().randomBytes(32).toString('base64url');
}

export function signedText(nonce: string, name: string, publicKey: string): Buffer {
  return Buffer.from(`${PROTOCOL}\n${nonce}\n${name}\n${publicKey}`, 'utf8');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const BASE64 = /^[A-Za-z0-9+/=_-]{1,512}$/;

/** An agent's hello, every field checked; a string saying what is wrong otherwise. */
export function parseHello(text: string): Hello | string {
  const v = parseObject(text);
  if (!v || v['type'] !== 'hello') return 'expected a hello message';
  const { name, public_key: key, signature, enrol_token: token, stage, version } = v;
  if (typeof name !== 'string' || !AGENT_NAME.test(name)) return 'invalid agent name';
  if (typeof key !== 'string' || !BASE64.test(key)) return 'invalid public key';
  if (typeof signature !== 'string' || !BASE64.test(signature)) return 'invalid signature';
  if (token !== undefined && (typeof token !== 'string' || token.length === 0 || token.length > 200)) return 'invalid enrol token';
  if (typeof stage !== 'number' || !Number.isInteger(stage) || stage < 1 || stage > 1000) return 'invalid stage';
  if (typeof version !== 'string' || version.length > 64) return 'invalid version';
  return { type: 'hello', name, public_key: key, signature, stage, version: version.replace(/[^\x20-\x7e]/g, ''), ...(token === undefined ? {} : { enrol_token: token }) };
}

export function parseChallenge(text: string): Challenge | undefined {
  const v = parseObject(text);
  if (!v || v['type'] !== 'challenge' || typeof v['nonce'] !== 'string' || !BASE64.test(v['nonce'])) return undefined;
  return { type: 'challenge', nonce: v['nonce'], version: typeof v['version'] === 'string' ? v['version'].slice(0, 64) : '' };
}

/** `welcome`, `calls` or `refused` from the controller. */
export function parseControl(text: string): { type: 'welcome' | 'calls'; calls: string[] } | { type: 'refused'; reason: string } | undefined {
  const v = parseObject(text);
  if (!v) return undefined;
  if (v['type'] === 'refused') return { type: 'refused', reason: String(v['reason'] ?? '').slice(0, 300) };
  if ((v['type'] === 'welcome' || v['type'] === 'calls') && Array.isArray(v['calls']) && v['calls'].every((c) => typeof c === 'string')) {
    return { type: v['type'], calls: v['calls'] as string[] };
  }
  return undefined;
}

/** An Ed25519 public key from its base64 SPKI DER, or undefined when it is not one. */
export function publicKeyOf(base64: string): KeyObject | undefined {
  try {
    const key = nodeCrypto().createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `hello` is signed over `nonce` by the key it presents. */
export function verifyHello(hello: Hello, nonce: string): boolean {
  const key = publicKeyOf(hello.public_key);
  if (!key) return false;
  try {
    return nodeCrypto().verify(null, signedText(nonce, hello.name, hello.public_key), key, Buffer.from(hello.signature, 'base64'));
  } catch {
    return false;
  }
}
