// Whose approval it is (docs/policies.md#whose-approval-it-is): an entry belongs to the container asked about,
// by its runtime id. At each run's final selection — the whole discovery (every container the engines list)
// and the watched ones, without a request of its own — an entry still waiting (pending, deferred, or approved for its
// window) whose container is not watched any more is `superseded` with the reason: the container was replaced
// by someone else (another id under the name), left the watched set (`enable=false`, a filter), or is gone.
// Entries an earlier version kept by name are matched here once (the container of that name whose last
// recorded check found exactly that candidate), or superseded when nothing says which container it was.
import { type ApprovalEntry, type Logger, type RunContext, type Target, type TidewatchCore } from '../../core/index.js';
import { containerKey, targetKey, type StateStore } from '../../contracts/index.js';
import { isLive, type ApprovalLedger } from './approval-ledger.js';

/** After every runtime's discovery tap, and after every other selection tap. */
const LAST = 1_000;

export interface IdentityDeps {
  readonly ledger: ApprovalLedger;
  readonly store: StateStore;
  readonly logger: Logger;
  readonly changed: (entry: ApprovalEntry) => void;
  /** True while an update run holds the lock: a replacement may be under way that the ledger follows only at its end. */
  readonly updating: () => boolean;
  readonly now?: () => Date;
}

const hostOf = (t: { host?: string | undefined }): string => t.host ?? '';

/** The run's containers, indexed once per judgement: every entry is then judged without a scan of the list. */
export class Seen {
  readonly #watched = new Set<string>();
  readonly #discovered = new Set<string>();
  /** `host|name` → the runtime id of the container under that name. */
  readonly #names = new Map<string, string>();
  readonly #hosts = new Set<string>();

  constructor(discovered: readonly Target[], watched: readonly Target[]) {
    for (const t of watched) this.#watched.add(`${hostOf(t)}|${t.id}`);
    for (const t of discovered) {
      this.#discovered.add(`${hostOf(t)}|${t.id}`);
      this.#names.set(`${hostOf(t)}|${t.name}`, t.id);
      this.#hosts.add(hostOf(t));
    }
  }

  /** Why a live entry's container is not among the watched ones, or undefined when it is (or nothing can be said). */
  missingReason(entry: ApprovalEntry): string | undefined {
    const host = hostOf(entry);
    if (this.#watched.has(`${host}|${entry.container_id ?? ''}`)) return undefined;
    // An engine that listed nothing (down, say) says nothing about its containers.
    if (!this.#hosts.has(host)) return undefined;
    const name = entry.container;
    if (this.#discovered.has(`${host}|${entry.container_id ?? ''}`)) return `container ${name} is no longer watched (its labels or the filters leave it out)`;
    const other = this.#names.get(`${host}|${name}`);
    if (other === undefined) return `container ${name} is gone (removed, or stopped while stopped containers are not watched)`;
    return this.#watched.has(`${host}|${other}`)
      ? `container ${name} was replaced by another container that Tidewatch did not create`
      : `container ${name} was recreated by someone else and is no longer watched (its labels or the filters leave it out)`;
  }
}

export class ApprovalIdentity {
  readonly #discovered = new WeakMap<RunContext, readonly Target[]>();

  constructor(readonly deps: IdentityDeps) {}

  tap(core: TidewatchCore): void {
    // The whole discovery, once per run: the selections of targets announced while discovery is still under
    // way (docs/performance.md#the-check-pipeline) come before it, and only the final selection follows it.
    core.hooks.discover.tapPromise({ name: 'policies', stage: LAST }, async (targets, ctx) => {
      if (this.deps.ledger.hasLive()) this.#discovered.set(ctx, targets);
      return targets;
    });
    core.hooks.select.tap({ name: 'policies', stage: LAST }, (targets, ctx) => {
      const discovered = this.#discovered.get(ctx);
      this.#discovered.delete(ctx);
      // A list or a check beside an update run could see a container Tidewatch is replacing before the
      // run's end follows it: only the update run itself, or a run with no update under way, judges.
      if (discovered && (ctx.kind === 'update' || !this.deps.updating())) this.reconcile(discovered, targets);
      return targets;
    });
  }

  reconcile(discovered: readonly Target[], watched: readonly Target[]): void {
    const now = this.deps.now?.() ?? new Date();
    for (const entry of this.deps.ledger.legacy()) this.#bindLegacy(entry, watched, now);
    const seen = new Seen(discovered, watched);
    for (const entry of this.deps.ledger.all()) {
      if (!isLive(entry) || entry.container_id === undefined) continue;
      const reason = seen.missingReason(entry);
      if (reason) this.#supersede(entry, reason, now);
    }
  }

  /** Binds an earlier version's entry (kept by name) to the container it was asked about, when that can be told. */
  bindLegacy(entry: ApprovalEntry, watched: readonly Target[], now: Date): ApprovalEntry | undefined {
    return this.#bindLegacy(entry, watched, now);
  }

  #bindLegacy(entry: ApprovalEntry, watched: readonly Target[], now: Date): ApprovalEntry | undefined {
    const wanted = containerKey({ name: entry.container, ...(entry.host ? { host: entry.host } : {}) });
    const target = watched.find((t) => containerKey(targetKey(t)) === wanted);
    if (!target) {
      this.#supersede(entry, `container ${entry.container} is no longer watched or is gone`, now);
      return undefined;
    }
    const check = this.deps.store.lastCheck(target.id);
    if (check?.updateAvailable && check.latestDigest === entry.latest_digest) {
      this.deps.ledger.bind(entry.id, target.id);
      this.deps.logger.info({ container: entry.container, approval: entry.id }, 'an approval kept by name now belongs to its container');
      return this.deps.ledger.get(entry.id);
    }
    this.#supersede(entry, `kept by name by an earlier version, and container ${entry.container} cannot be told to be the one asked about: asked again if it still applies`, now);
    return undefined;
  }

  #supersede(entry: ApprovalEntry, reason: string, now: Date): void {
    const next = this.deps.ledger.supersede(entry.id, reason, now);
    if (!next) return;
    this.deps.logger.info({ container: entry.container, approval: entry.id, reason }, 'approval superseded');
    this.deps.changed(next);
  }
}
