// What the controller keeps of its agents (docs/fleet.md#enrolment), in the state store's keyed collections
// (docs/state.md): enrolled agents by name (name, public key, stage, enrolled_at, last_seen, version) and
// enrolment tokens by the SHA-256 of the token, never the token. A token is 256 random bits, so one SHA-256
// is as good as a slow hash here (plugins/people/tokens.ts says why). A spent token is kept, marked, so a
// second use is refused as "spent" and logged as such; expired and spent ones go past MAX_TOKENS.
// node:crypto loads with the first use, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');
import type { StateStore } from '../../contracts/index.js';
import { ENROLLED as AGENTS, ENROLMENTS as TOKENS } from './store-names.js';

/** Enrolled agents at most: enrolling one more is refused (revoke one first). */
export const MAX_AGENTS = 5_000;
const MAX_TOKENS = 1_000;

export interface EnrolledAgent {
  readonly name: string;
  /** Ed25519 SPKI DER, base64. */
  readonly public_key: string;
  stage: number;
  readonly enrolled_at: string;
  last_seen: string | null;
  version: string | null;
}

interface EnrolmentToken {
  readonly hash: string;
  /** The only name it may enrol, or null for any. */
  readonly name: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  spent_at?: string;
  spent_by?: string;
}

export type TokenCheck = { ok: true } | { ok: false; why: 'unknown' | 'spent' | 'expired' | 'other-name' };

export function tokenHash(token: string): string {
  return nodeCrypto().createHash('sha256').update(token, 'utf8').digest('base64url');
}

function all(store: StateStore, collection: string): unknown[] {
  const values: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = store.recordsPage(collection, { limit: 500, ...(cursor ? { cursor } : {}) });
    values.push(...page.entries.map((e) => e.value));
    cursor = page.next;
  } while (cursor);
  return values;
}

function isAgent(v: unknown): v is EnrolledAgent {
  const a = v as Partial<EnrolledAgent> | null;
  return typeof a === 'object' && a !== null && typeof a.name === 'string' && typeof a.public_key === 'string' && typeof a.stage === 'number';
}

function isToken(v: unknown): v is EnrolmentToken {
  const t = v as Partial<EnrolmentToken> | null;
  return typeof t === 'object' && t !== null && typeof t.hash === 'string' && typeof t.expires_at === 'string';
}

export class AgentStore {
  readonly #agents = new Map<string, EnrolledAgent>();
  readonly #tokens = new Map<string, EnrolmentToken>();

  constructor(readonly store: StateStore) {
    for (const v of all(store, AGENTS)) if (isAgent(v)) this.#agents.set(v.name, { ...v });
    for (const v of all(store, TOKENS)) if (isToken(v)) this.#tokens.set(v.hash, { ...v });
  }

  agents(): readonly EnrolledAgent[] {
    return [...this.#agents.values()];
  }

  agent(name: string): EnrolledAgent | undefined {
    return this.#agents.get(name);
  }

  /** A new one-time token: the secret is in the answer and nowhere else. */
  createToken(name: string | undefined, expiresInMs: number): { token: string; expires_at: string } {
    this.#prune();
    const token = `twa_${nodeCrypto().randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const record: EnrolmentToken = {
      hash: tokenHash(token),
      name: name ?? null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + expiresInMs).toISOString(),
    };
    this.#tokens.set(record.hash, record);
    this.store.setRecord(TOKENS, record.hash, record);
    return { token, expires_at: record.expires_at };
  }

  checkToken(token: string, name: string): TokenCheck {
    const record = this.#tokens.get(tokenHash(token));
    if (!record) return { ok: false, why: 'unknown' };
    if (record.spent_at) return { ok: false, why: 'spent' };
    if (Date.parse(record.expires_at) <= Date.now()) return { ok: false, why: 'expired' };
    if (record.name !== null && record.name !== name) return { ok: false, why: 'other-name' };
    return { ok: true };
  }

  /** Spends the token and enrols `name` with `publicKey`, in one write. */
  enrol(token: string, name: string, publicKey: string, stage: number, version: string): EnrolledAgent {
    const record = this.#tokens.get(tokenHash(token)) as EnrolmentToken;
    const now = new Date().toISOString();
    record.spent_at = now;
    record.spent_by = name;
    this.store.setRecord(TOKENS, record.hash, record);
    const agent: EnrolledAgent = { name, public_key: publicKey, stage, enrolled_at: now, last_seen: now, version };
    this.#agents.set(name, agent);
    this.store.setRecord(AGENTS, name, agent);
    return agent;
  }

  /** Saves what changed of an agent (last seen, stage, version). */
  save(agent: EnrolledAgent): void {
    if (this.#agents.get(agent.name) === agent) this.store.setRecord(AGENTS, agent.name, agent);
  }

  revoke(name: string): EnrolledAgent | undefined {
    const agent = this.#agents.get(name);
    if (!agent) return undefined;
    this.#agents.delete(name);
    this.store.setRecord(AGENTS, name, undefined);
    return agent;
  }

  get size(): number {
    return this.#agents.size;
  }

  /** Spent and expired tokens go first once there are too many. */
  #prune(): void {
    if (this.#tokens.size < MAX_TOKENS) return;
    const now = Date.now();
    for (const record of this.#tokens.values()) {
      if (this.#tokens.size < MAX_TOKENS) break;
      if (record.spent_at || Date.parse(record.expires_at) <= now) {
        this.#tokens.delete(record.hash);
        this.store.setRecord(TOKENS, record.hash, undefined);
      }
    }
  }
}
