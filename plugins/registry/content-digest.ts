// The digest of a registry document's bytes, in the `sha256:<hex>` form registries name content by:
// a manifest's digest when a HEAD gave none, and the check of a read by digest (registry-service.ts).
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export function sha256Digest(body: Buffer): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(body).digest('hex')}`;
}
