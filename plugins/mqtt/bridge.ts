// Keeps Home Assistant's update entities in step with the runs (docs/mqtt.md): discovery from the target list
// at start, every run's report (the core's internal `run_report` event) for the states, the retained messages
// of containers that went away cleared after a full run, and the entity's Install command turned into a
// targeted update of that one container through the core (so through the update lock, as the API's).
// Work is done one step at a time on a queue, so a late answer never overwrites a newer one; nothing here
// can fail or slow a run: every error is logged.
import {
  errorMessage,
  exactNamePattern,
  type ApplyResult,
  type CheckResult,
  type EventPayloads,
  type Logger,
  type Target,
  type TidewatchCore,
  type TidewatchEvent,
} from '../../core/index.js';
import { UPDATE_POLICIES, targetKey } from '../../contracts/index.js';
import type { Entity } from './entities.js';
import { Entities } from './entities.js';
import { discoveryConfig, entityState } from './payloads.js';
import { PAYLOAD_INSTALL, type Topics } from './topics.js';

/** What the bridge publishes through (the broker connection; a recorder in unit tests). */
export interface Publisher {
  publish(topic: string, payload: string): void;
}

type RunReport = EventPayloads['run_report'];

export class HomeAssistantBridge {
  readonly #entities = new Entities();
  /** Object ids with a non-empty retained config on the broker (learnt from our subscription to them). */
  readonly #retained = new Set<string>();
  readonly #targeted = new Map<string, boolean>();
  #queue: Promise<void> = Promise.resolve();
  #discovered = false;

  constructor(
    private readonly core: TidewatchCore,
    private readonly topics: Topics,
    private readonly publisher: Publisher,
    private readonly logger: Logger,
  ) {}

  /** Resolves once every step queued so far is done (tests, shutdown). */
  idle(): Promise<void> {
    return this.#queue;
  }

  #enqueue(what: string, step: () => Promise<void> | void): void {
    this.#queue = this.#queue.then(step).catch((err: unknown) => this.logger.warn({ err: errorMessage(err) }, `mqtt: ${what} failed`));
  }

  /** The first discovery: what runs now, before any check (latest versions follow the first check). */
  discover(): void {
    this.#enqueue('discovery', async () => this.#reconcile(await this.core.targets({ trigger: 'mqtt' }), true));
  }

  /**
   * Every (re)connect: the first discovers the containers; later ones say it all again, since the broker may
   * have lost everything.
   */
  connected(): void {
    if (!this.#discovered) {
      this.#discovered = true;
      this.discover();
      return;
    }
    this.#enqueue('republish', () => {
      for (const entity of this.#entities.all()) {
        this.#publishConfig(entity);
        this.#publishState(entity);
      }
    });
  }

  onEvent(event: TidewatchEvent): void {
    switch (event.type) {
      case 'scan_started':
        this.#targeted.set(event.data.run_id, event.data.targeted);
        break;
      case 'update_started':
        this.#enqueue('progress', () => this.#progress(event.data.container, true));
        break;
      case 'run_report': {
        const data = event.data;
        this.#enqueue('state', () => this.#report(data));
        break;
      }
      case 'scan_failed':
        this.#targeted.delete(event.data.run_id);
        this.#enqueue('progress', () => {
          for (const entity of this.#entities.all()) if (entity.inProgress) this.#progressOf(entity, false);
        });
        break;
      default:
        break;
    }
  }

  onMessage(topic: string, payload: string): void {
    const match = this.topics.objectIdIn(topic);
    if (!match) return;
    if (match.kind === 'config') {
      if (payload === '') this.#retained.delete(match.objectId);
      else this.#retained.add(match.objectId);
      return;
    }
    if (payload !== PAYLOAD_INSTALL) {
      this.logger.warn({ topic }, `mqtt: ignoring a command other than ${PAYLOAD_INSTALL}`);
      return;
    }
    void this.install(match.objectId);
  }

  /** The Install command: a targeted update of that container; its report updates the state. */
  async install(objectId: string): Promise<void> {
    const entity = this.#entities.get(objectId);
    if (!entity) {
      this.logger.warn({ objectId }, 'mqtt: Install for a container Tidewatch does not watch; ignored');
      return;
    }
    if (entity.inProgress) return;
    const name = entity.target.name;
    // A pending approval (docs/policies.md#approvals): Install approves exactly that candidate and applies it now.
    const policies = this.core.services.get(UPDATE_POLICIES);
    const pending = policies?.pendingFor({ ...targetKey(entity.target), id: entity.target.id });
    if (policies && pending) {
      this.logger.info({ container: name, approval: pending.id }, 'mqtt: Install approves the pending update');
      this.#progressOf(entity, true);
      const outcome = await policies.decide(pending.id, 'approve', { by: 'mqtt', now: true }).catch((err: unknown) => {
        this.logger.warn({ container: name, err: errorMessage(err) }, 'mqtt: approving the update failed');
        return undefined;
      });
      // The approval's run reports like any other, and its report clears the progress; without a run, clear it now.
      if (outcome?.status !== 'decided' || !outcome.runId) this.#enqueue('progress', () => this.#progress(name, false));
      return;
    }
    this.logger.info({ container: name }, 'mqtt: Install requested; updating the container');
    this.#progressOf(entity, true);
    try {
      await this.core.update({ filters: { containers: [exactNamePattern(name)] }, trigger: 'mqtt' });
    } catch (err) {
      this.logger.warn({ container: name, err: errorMessage(err) }, 'mqtt: the requested update failed');
    } finally {
      this.#enqueue('progress', () => this.#progress(name, false));
    }
  }

  async #report(data: RunReport): Promise<void> {
    const targeted = data.kind === 'update' ? data.report.targeted : (this.#targeted.get(data.run_id) ?? true);
    this.#targeted.delete(data.run_id);
    const checks: readonly CheckResult[] = data.kind === 'check' ? data.report.results : data.report.checks;
    const touched = new Set<Entity>();
    for (const result of checks) {
      const { entity, added } = this.#entities.checked(result.target, result.staleness);
      if (added) this.#publishConfig(entity);
      touched.add(entity);
    }
    if (data.kind === 'update') {
      for (const entity of await this.#afterUpdate(data.report.results, checks)) touched.add(entity);
    }
    for (const entity of touched) {
      entity.inProgress = false;
      this.#publishState(entity);
    }
    if (!targeted) this.#clearGone(new Set(checks.map((c) => c.target.name)));
  }

  /** The replaced containers as they run now: up to date, on their new image (and its labels). */
  async #afterUpdate(results: readonly ApplyResult[], checks: readonly CheckResult[]): Promise<Entity[]> {
    const updated = results.filter((r) => r.outcome === 'updated').map((r) => r.target.name);
    if (updated.length === 0) return [];
    const fresh = await this.core.targets({ filters: { containers: updated.map(exactNamePattern) }, trigger: 'mqtt' });
    const answers = new Map(checks.map((c) => [c.target.name, c.staleness]));
    return fresh
      .filter((t) => updated.includes(t.name))
      .map((t) => this.#entities.updated(t, answers.get(t.name)?.source ?? 'registry', answers.get(t.name)));
  }

  #reconcile(targets: readonly Target[], full: boolean): void {
    for (const target of targets) {
      const { entity, added } = this.#entities.see(target);
      if (added) this.#publishConfig(entity);
      this.#publishState(entity);
    }
    if (full) this.#clearGone(new Set(targets.map((t) => t.name)));
  }

  /** Clears the retained config and state of every entity (known or left on the broker) not in `names`. */
  #clearGone(names: ReadonlySet<string>): void {
    const keep = new Set<string>();
    for (const entity of this.#entities.all()) {
      if (names.has(entity.target.name)) {
        keep.add(entity.objectId);
        continue;
      }
      this.#entities.remove(entity.objectId);
      this.#retained.delete(entity.objectId);
      this.#clear(entity.objectId, entity.target.name);
    }
    for (const objectId of [...this.#retained]) {
      if (keep.has(objectId)) continue;
      this.#retained.delete(objectId);
      this.#clear(objectId, objectId);
    }
  }

  #clear(objectId: string, name: string): void {
    this.logger.info({ container: name }, 'mqtt: container gone; clearing its Home Assistant entity');
    this.publisher.publish(this.topics.config(objectId), '');
    this.publisher.publish(this.topics.state(objectId), '');
  }

  #progress(name: string, inProgress: boolean): void {
    const entity = this.#entities.byName(name);
    if (entity) this.#progressOf(entity, inProgress);
  }

  #progressOf(entity: Entity, inProgress: boolean): void {
    if (entity.inProgress === inProgress) return;
    entity.inProgress = inProgress;
    this.#publishState(entity);
  }

  #publishConfig(entity: Entity): void {
    this.#retained.add(entity.objectId);
    const config = discoveryConfig(this.topics, entity.objectId, entity.target.name);
    this.publisher.publish(this.topics.config(entity.objectId), JSON.stringify(config));
  }

  #publishState(entity: Entity): void {
    const state = entityState(entity.target, entity.staleness, entity.inProgress);
    this.publisher.publish(this.topics.state(entity.objectId), JSON.stringify(state));
  }
}
