// Public keys for key-based verification (docs/signatures.md#options): PEM given inline or read from a
// file, restricted to what cosign signs with: ECDSA P-256 (or P-384), Ed25519 and RSA (2048 bits or more).
import type { KeyObject } from 'node:crypto';
import { errorMessage } from '../../core/index.js';
import { signatureErrors } from './errors.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync } = process.getBuiltinModule('node:fs');
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export interface CosignKey {
  readonly key: KeyObject;
  /** `ecdsa-p256`, `ed25519`, `rsa-3072`: how logs and reasons name it. */
  readonly kind: string;
  /** sha256 of the key's DER form (SPKI), hex: the hint a Sigstore bundle names a key by. */
  readonly id: string;
}

const CURVES: Readonly<Record<string, string>> = { prime256v1: 'p256', secp384r1: 'p384' };
const MAX_KEY_FILE_BYTES = 64 * 1024;

function describe(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const curve = CURVES[details.namedCurve ?? ''];
      if (!curve) throw new Error(`unsupported elliptic curve ${details.namedCurve ?? 'unknown'} (P-256 or P-384)`);
      return `ecdsa-${curve}`;
    }
    case 'ed25519':
      return 'ed25519';
    case 'rsa': {
      const bits = details.modulusLength ?? 0;
      if (bits < 2048) throw new Error(`RSA key of ${bits} bits is too short (2048 or more)`);
      return `rsa-${bits}`;
    }
    default:
      throw new Error(`unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (ECDSA, Ed25519 or RSA)`);
  }
}

/** One `--cosign-key` value: PEM text, or the path of a file holding it. */
export function loadKey(value: string): CosignKey {
  const inline = value.includes('-----BEGIN');
  const which = inline ? `#${value.length}-char PEM` : value;
  let pem = value;
  try {
    if (!inline) {
      const data = readFileSync(value);
      if (data.length > MAX_KEY_FILE_BYTES) throw new Error(`larger than ${MAX_KEY_FILE_BYTES} bytes`);
      pem = data.toString('utf8');
    }
    const key = nodeCrypto().createPublicKey({ key: pem, format: 'pem' });
    const kind = describe(key);
    const id = nodeCrypto().createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');
    return { key, kind, id };
  } catch (err) {
    throw signatureErrors.badKey(inline ? 'given inline' : which, errorMessage(err));
  }
}

/**
 * Whether `signature` is `key`'s over `data`, as cosign signs: ECDSA and RSA (PKCS#1 v1.5) over SHA-256 (cosign hashes with SHA-256 whatever the curve),
 * Ed25519 over the data itself. A malformed signature is simply not valid.
 */
export function verifiesWith(key: CosignKey, data: Buffer, signature: Buffer): boolean {
  try {
    const algorithm = key.kind === 'ed25519' ? null : 'sha256';
    return nodeCrypto().verify(algorithm, data, key.key, signature);
  } catch {
    return false;
  }
}
