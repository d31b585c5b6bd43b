// Rollback on demand (docs/state.md#rollback-on-demand): a targeted update run, under the update lock like
// any other, in which this plugin answers the container's staleness check with its previous image
// (`targetImageId`): the runtime then replaces the container through its one safe replacement path, and a
// previous image that fails to start is rolled back like any failed update, leaving the current one running.
// The previous image belongs to the container Tidewatch updated (docs/state.md#identity): the name a person
// gives is looked up among the running targets, and only that container's own state is used.
import { STAGES, exactNamePattern, repoDigest, type Actor, type Target, type TidewatchCore } from '../../core/index.js';
import { LOCAL_IMAGES } from '../../contracts/index.js';
import type { AuditImage, ContainerKey, PreviousImage, RollbackOutcome, Rollbacks, StateStore } from './contracts.js';
import type { SnapshotService } from './snapshot-service.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

interface PendingRollback {
  /** The runtime id of the container (or service) this run puts back. */
  readonly id: string;
  readonly previous: PreviousImage;
}

/** A Swarm service rolls back through Swarm's own rollback (docs/swarm.md#rollback-on-demand). */
const SERVICE = 'service';

export class RollbackRuns implements Rollbacks {
  readonly #pending = new Map<string, PendingRollback>();

  constructor(
    readonly core: TidewatchCore,
    readonly store: StateStore,
    readonly snapshots?: SnapshotService,
  ) {}

  isRollbackRun(runId: string): boolean {
    return this.#pending.has(runId);
  }

  /** The previous image this run puts the target `id` back on, when it is a rollback of that target. */
  rollbackOf(runId: string, id: string): PreviousImage | undefined {
    const pending = this.#pending.get(runId);
    return pending?.id === id ? pending.previous : undefined;
  }

  /** The staleness answer of a rollback run: before every source, from what the store remembers. */
  tap(): void {
    const { core } = this;
    core.hooks.checkStaleness.tap({ name: 'state', stage: STAGES.checkStaleness.local - 5 }, (target, ctx) => {
      const previous = this.rollbackOf(ctx.runId, target.id);
      if (!previous) return undefined;
      const source = core.watchPath(target);
      if (target.imageId === previous.imageId) return { source, stale: false };
      // Only runtimes that honour `targetImageId` are asked: the Docker runtime (a local image) and the Swarm
      // runtime (through Swarm's rollback to the service's previous spec).
      if (target.kind !== undefined && target.kind !== 'container' && target.kind !== SERVICE) {
        return { source, stale: true, notApplicable: `rollback on demand is for containers and services, not a ${target.kind}` };
      }
      return { source, stale: true, latestImageId: previous.imageId, targetImageId: previous.imageId, targetImage: previous.image };
    });
  }

  /** The one running target a person named, or undefined when none of that name (and engine) runs. */
  async #find(key: ContainerKey, signal?: AbortSignal): Promise<Target | undefined> {
    const targets = await this.core.targets({
      filters: { containers: [exactNamePattern(key.name)], ...(key.host ? { hosts: [key.host] } : {}) },
      ...(signal ? { signal } : {}),
    });
    // With several engines and no host given, the one of them Tidewatch updated.
    return targets.find((t) => this.store.previousImage(t.id) !== undefined) ?? targets[0];
  }

  async rollback(
    key: ContainerKey,
    options: { trigger?: string; actor?: Actor; signal?: AbortSignal; runId?: string; restore?: 'volumes' } = {},
  ): Promise<RollbackOutcome> {
    const target = await this.#find(key, options.signal);
    const previous = target && this.store.previousImage(target.id);
    if (!target || !previous) return { status: 'unknown' };
    if (target.kind !== SERVICE) {
      const local = await this.core.services.get(LOCAL_IMAGES)?.inspectImage(previous.imageId, options.signal, target.host);
      if (!local) return { status: 'gone', previous };
    }
    const runId = options.runId ?? nodeCrypto().randomUUID();
    this.#pending.set(runId, { id: target.id, previous });
    // restore=volumes: the snapshot the update being rolled back took, while the container ran the previous image.
    if (options.restore === 'volumes') {
      const snapshot = this.snapshots?.latestFor(target.name, target.host, previous.imageId);
      if (!snapshot) {
        this.#pending.delete(runId);
        return { status: 'no_snapshot', previous };
      }
      this.snapshots?.requestRestore(runId, target.id, snapshot);
    }
    try {
      const report = await this.core.update({
        filters: { containers: [exactNamePattern(target.name)], ...(target.host ? { hosts: [target.host] } : {}) },
        trigger: options.trigger ?? 'api',
        ...(options.actor ? { actor: options.actor } : {}),
        runId,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const check = report.checks.find((c) => c.target.id === target.id);
      const from: AuditImage = check
        ? { image: check.target.image, digest: repoDigest(check.target), image_id: check.target.imageId }
        : { image: '', digest: '', image_id: '' };
      const to: AuditImage = { image: previous.image, digest: previous.digest, image_id: previous.imageId };
      return { status: 'done', report, from, to };
    } finally {
      this.#pending.delete(runId);
      this.snapshots?.forgetRestore(runId);
    }
  }

  /** Lifts the hold and forgets the failed candidate of the named container (docs/state.md#holds). */
  async release(key: ContainerKey, actor?: Actor): Promise<boolean> {
    const targets = await this.core.targets({
      filters: { containers: [exactNamePattern(key.name)], ...(key.host ? { hosts: [key.host] } : {}) },
    });
    let released = false;
    for (const target of targets) {
      const hold = this.store.hold(target.id);
      const lifted = Boolean(hold || this.store.failedCandidate(target.id));
      this.store.setHold(target.id, undefined);
      this.store.setFailedCandidate(target.id, undefined);
      if (!lifted) continue;
      released = true;
      // A release is a person's decision: the audit trail says who lifted the hold (docs/people.md).
      await this.store.appendAudit({
        action: 'release',
        container: target.name,
        ...(target.host ? { host: target.host } : {}),
        trigger: 'api',
        ...(actor ? { actor } : {}),
        run_id: '',
        ...(hold ? { from: { image: hold.image, digest: hold.digest, image_id: hold.imageId } } : {}),
        outcome: 'released',
      });
    }
    return released;
  }
}
