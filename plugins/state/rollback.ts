// Rollback on demand (docs/state.md#rollback-on-demand): a targeted update run, under the update lock like
// any other, in which this plugin answers the container's staleness check with its previous image
// (`targetImageId`): the runtime then replaces the container through its one safe replacement path, and a
// previous image that fails to start is rolled back like any failed update, leaving the current one running.
import { randomUUID } from 'node:crypto';
import {
  LOCAL_IMAGES,
  STAGES,
  containerKey,
  exactNamePattern,
  repoDigest,
  targetKey,
  type AuditImage,
  type ContainerKey,
  type PreviousImage,
  type RollbackOutcome,
  type Rollbacks,
  type StateStore,
  type TidewatchCore,
} from '../../core/index.js';

interface PendingRollback {
  readonly key: string;
  readonly previous: PreviousImage;
}

export class RollbackRuns implements Rollbacks {
  readonly #pending = new Map<string, PendingRollback>();

  constructor(
    readonly core: TidewatchCore,
    readonly store: StateStore,
  ) {}

  isRollbackRun(runId: string): boolean {
    return this.#pending.has(runId);
  }

  /** The previous image this run puts `key` back on, when it is a rollback of that container. */
  rollbackOf(runId: string, key: ContainerKey): PreviousImage | undefined {
    const pending = this.#pending.get(runId);
    if (!pending) return undefined;
    // Asked by name alone, it matches that container on whichever engine.
    return pending.key === containerKey(key) || pending.key === key.name ? pending.previous : undefined;
  }

  /** The staleness answer of a rollback run: before every source, from what the store remembers. */
  tap(): void {
    const { core } = this;
    core.hooks.checkStaleness.tap({ name: 'state', stage: STAGES.checkStaleness.local - 5 }, (target, ctx) => {
      const previous = this.rollbackOf(ctx.runId, targetKey(target));
      if (!previous) return undefined;
      const source = core.watchPath(target);
      if (target.imageId === previous.imageId) return { source, stale: false };
      // Only a runtime that honours `targetImageId` may be asked (the Docker runtime); a Swarm service rolls
      // back through Swarm itself (docs/swarm.md).
      if (target.kind !== undefined && target.kind !== 'container') {
        return { source, stale: true, notApplicable: `rollback on demand is for containers, not a ${target.kind}` };
      }
      return { source, stale: true, latestImageId: previous.imageId, targetImageId: previous.imageId, targetImage: previous.image };
    });
  }

  async rollback(key: ContainerKey, options: { trigger?: string; signal?: AbortSignal; runId?: string } = {}): Promise<RollbackOutcome> {
    const previous = this.store.previousImage(key);
    if (!previous) return { status: 'unknown' };
    const local = await this.core.services.get(LOCAL_IMAGES)?.inspectImage(previous.imageId, options.signal, key.host);
    if (!local) return { status: 'gone', previous };
    const runId = options.runId ?? randomUUID();
    this.#pending.set(runId, { key: containerKey(key), previous });
    try {
      const report = await this.core.update({
        filters: { containers: [exactNamePattern(key.name)], ...(key.host ? { hosts: [key.host] } : {}) },
        trigger: options.trigger ?? 'api',
        runId,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const check = report.checks.find((c) => c.target.name === key.name);
      const from: AuditImage = check
        ? { image: check.target.image, digest: repoDigest(check.target), image_id: check.target.imageId }
        : { image: '', digest: '', image_id: '' };
      const to: AuditImage = { image: previous.image, digest: previous.digest, image_id: previous.imageId };
      return { status: 'done', report, from, to };
    } finally {
      this.#pending.delete(runId);
    }
  }

  release(key: ContainerKey): boolean {
    if (!this.store.hold(key)) return false;
    this.store.setHold(key, undefined);
    return true;
  }
}
