// OpenSSH's known_hosts file (docs/ssh-hosts.md#the-known-hosts-rule), read the way `ssh` reads it with
// StrictHostKeyChecking=yes: a host's key must be listed, or the connection is refused. Never trusted on
// first use, never written. Lines are `[@marker] patterns keytype base64-key [comment]`; patterns are plain
// (comma-separated, with `*`, `?` and `!` negation) or hashed (`|1|salt|HMAC-SHA1(salt, name)`); a host on a
// port other than 22 is listed as `[host]:port`. Pure parsing and comparison: nothing of ssh2 loads here.
// node:crypto loads with the first use, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** The host key types this reader knows; lines of other types are ignored. */
export const HOST_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'] as const;
export type HostKeyType = (typeof HOST_KEY_TYPES)[number];

export interface KnownHostEntry {
  /** 1-based, for messages. */
  readonly line: number;
  /** `@revoked`: this key is refused for the hosts listed; `@cert-authority` lines are skipped (no host certificates). */
  readonly revoked: boolean;
  /** Plain patterns, or undefined for a hashed entry. */
  readonly patterns: readonly string[] | undefined;
  readonly hashed: { readonly salt: Buffer; readonly hash: Buffer } | undefined;
  readonly type: HostKeyType;
  /** The key blob as the server sends it (SSH wire format). */
  readonly key: Buffer;
}

export interface KnownHosts {
  readonly entries: readonly KnownHostEntry[];
  /** Lines neither blank nor comments that were not used: malformed, an unknown key type, `@cert-authority`. */
  readonly ignored: number;
}

/** The first SSH string of a key blob: its type. */
export function blobType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || blob.length < 4 + length) return undefined;
  return blob.subarray(4, 4 + length).toString('latin1');
}

function isKeyType(value: string): value is HostKeyType {
  return (HOST_KEY_TYPES as readonly string[]).includes(value);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function hashedPattern(field: string): { salt: Buffer; hash: Buffer } | undefined {
  const parts = field.split('|');
  // '|1|salt|hash' splits into ['', '1', salt, hash].
  if (parts.length !== 4 || parts[1] !== '1' || !BASE64.test(parts[2] ?? '') || !BASE64.test(parts[3] ?? '')) return undefined;
  const salt = Buffer.from(parts[2] as string, 'base64');
  const hash = Buffer.from(parts[3] as string, 'base64');
  return salt.length === 20 && hash.length === 20 ? { salt, hash } : undefined;
}

function parseLine(text: string, line: number): KnownHostEntry | 'ignored' | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  const fields = trimmed.split(/\s+/);
  let marker: string | undefined;
  if (fields[0]?.startsWith('@')) marker = fields.shift();
  if (marker !== undefined && marker !== '@revoked') return 'ignored';
  const [hosts, type, key] = fields;
  if (hosts === undefined || type === undefined || key === undefined || !isKeyType(type) || !BASE64.test(key)) return 'ignored';
  const blob = Buffer.from(key, 'base64');
  // A key whose blob names another type than its line is a damaged line, never a match.
  if (blobType(blob) !== type) return 'ignored';
  if (hosts.startsWith('|')) {
    const hashed = hashedPattern(hosts);
    if (!hashed) return 'ignored';
    return { line, revoked: marker === '@revoked', patterns: undefined, hashed, type, key: blob };
  }
  const patterns = hosts.split(',').filter((p) => p !== '');
  if (patterns.length === 0) return 'ignored';
  return { line, revoked: marker === '@revoked', patterns, hashed: undefined, type, key: blob };
}

export function parseKnownHosts(text: string): KnownHosts {
  const entries: KnownHostEntry[] = [];
  let ignored = 0;
  text.split(/\r?\n/).forEach((line, index) => {
    const parsed = parseLine(line, index + 1);
    if (parsed === 'ignored') ignored++;
    else if (parsed) entries.push(parsed);
  });
  return { entries, ignored };
}

/** The name a host is listed under: `host` on port 22, `[host]:port` on any other (as `ssh` looks it up). */
export function knownHostName(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

/**
 * OpenSSH's wildcard match: `*` any run, `?` one character; case-insensitive. Greedy with one backtrack point
 * (the last `*`), so no pattern in the file can make a lookup slow.
 */
export function wildcard(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase();
  let pi = 0;
  let ni = 0;
  let star = -1;
  let resume = 0;
  while (ni < name.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === name[ni])) {
      pi++;
      ni++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = ni;
    } else if (star >= 0) {
      pi = star + 1;
      ni = ++resume;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}

/** Whether an entry lists `name`: a hashed entry by its HMAC, plain patterns with negation winning. */
export function entryMatches(entry: KnownHostEntry, name: string): boolean {
  if (entry.hashed) {
    const digest = nodeCrypto().createHmac('sha1', entry.hashed.salt).update(name).digest();
    return nodeCrypto().timingSafeEqual(digest, entry.hashed.hash);
  }
  let matched = false;
  for (const pattern of entry.patterns ?? []) {
    const negated = pattern.startsWith('!');
    if (!wildcard(negated ? pattern.slice(1) : pattern, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/** What the file says about one host. */
export interface HostKeys {
  readonly name: string;
  readonly keys: readonly { readonly type: HostKeyType; readonly key: Buffer }[];
  readonly revoked: readonly Buffer[];
}

export function keysFor(known: KnownHosts, name: string): HostKeys {
  const keys: { type: HostKeyType; key: Buffer }[] = [];
  const revoked: Buffer[] = [];
  for (const entry of known.entries) {
    if (!entryMatches(entry, name)) continue;
    if (entry.revoked) revoked.push(entry.key);
    else keys.push({ type: entry.type, key: entry.key });
  }
  return { name, keys, revoked };
}

export type HostKeyVerdict = 'known' | 'unknown' | 'changed' | 'revoked';

/** `known` only for a key listed for the host and not revoked; `changed` when the host is listed with other keys. */
export function verifyHostKey(keys: HostKeys, presented: Buffer): HostKeyVerdict {
  if (keys.revoked.some((key) => key.equals(presented))) return 'revoked';
  if (keys.keys.some(({ key }) => key.equals(presented))) return 'known';
  return keys.keys.length === 0 ? 'unknown' : 'changed';
}

/** `SHA256:…` as `ssh-keygen -l` prints it. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${nodeCrypto().createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * The host key algorithms to offer, for the types listed for the host only, in the file's order: the
 * server then presents a key the file can vouch for (OpenSSH orders its offer the same way). An RSA key
 * is offered with its SHA-2 signatures first.
 */
export function hostKeyAlgorithms(keys: HostKeys): string[] {
  const algorithms: string[] = [];
  for (const { type } of keys.keys) {
    const forType = type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [type];
    for (const algorithm of forType) if (!algorithms.includes(algorithm)) algorithms.push(algorithm);
  }
  return algorithms;
}
