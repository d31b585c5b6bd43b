// Authenticating a webhook (docs/webhooks.md#authentication): the receiver's token, from
// `Authorization: Bearer <token>` or the path segment of `/v1/hooks/{receiver}/{token}`, and/or its HMAC
// secret over the raw body (`X-Hub-Signature-256: sha256=<hex>`, GitHub's scheme). Both comparisons are
// constant-time: tokens as SHA-256 digests (equal lengths whatever was sent), signatures as 32-byte digests.
import { bearerToken } from '../../contracts/shared/bearer-token.js';
import type { WebhookReceiver } from './receivers.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

const digest = (value: string): Buffer => nodeCrypto().createHash('sha256').update(value, 'utf8').digest();

export function tokenMatches(expected: string, candidate: string | undefined): boolean {
  // Hash even when nothing was sent, so a missing token costs what a wrong one costs.
  const equal = nodeCrypto().timingSafeEqual(digest(candidate ?? ''), digest(expected));
  return candidate !== undefined && equal;
}

/** `sha256=<hex>` of HMAC-SHA256(secret, body), as GitHub computes it over the raw bytes. */
export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${nodeCrypto().createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  const expected = nodeCrypto().createHmac('sha256', secret).update(body).digest();
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '');
  // A malformed header is compared as zeros: same work, never equal to a real HMAC by construction below.
  const given = match ? Buffer.from(match[1] as string, 'hex') : Buffer.alloc(expected.length);
  return nodeCrypto().timingSafeEqual(given, expected) && match !== null;
}

export type AuthFailure = 'missing token' | 'invalid token' | 'missing signature' | 'invalid signature';

/** Undefined when the request may pass; otherwise why not (for the log line, never with what was sent). */
export function authenticate(
  receiver: WebhookReceiver,
  request: { readonly authorization: string | undefined; readonly pathToken: string | undefined; readonly signature: string | undefined; readonly body: Buffer },
): AuthFailure | undefined {
  if (receiver.token !== '') {
    // The header first; the path segment is for senders that cannot set one. One credential, no second chance.
    const candidate = bearerToken(request.authorization) ?? request.pathToken;
    if (!tokenMatches(receiver.token, candidate)) return candidate === undefined ? 'missing token' : 'invalid token';
  }
  if (receiver.secret !== '') {
    if (!signatureMatches(receiver.secret, request.body, request.signature)) {
      return request.signature === undefined ? 'missing signature' : 'invalid signature';
    }
  }
  return undefined;
}
