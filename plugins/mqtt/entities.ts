// What the plugin knows of each watched container: its latest target, the last check's answer for the image
// it runs, and whether an update of it is under way. Keyed by object id (from the name, docs/mqtt.md#topics).
import { FINDINGS, readFinding, withFinding, type Staleness, type Target } from '../../core/index.js';
import { objectIdOf } from './topics.js';

export interface Entity {
  readonly objectId: string;
  target: Target;
  /** The last check's answer, for the image id in `checkedImageId`. */
  staleness: Staleness | undefined;
  checkedImageId: string | undefined;
  inProgress: boolean;
}

export class Entities {
  readonly #byId = new Map<string, Entity>();

  get(objectId: string): Entity | undefined {
    return this.#byId.get(objectId);
  }

  byName(name: string): Entity | undefined {
    return this.#byId.get(objectIdOf(name));
  }

  all(): Entity[] {
    return [...this.#byId.values()];
  }

  /** Seen by discovery: a check answered for another image says nothing about this one. */
  see(target: Target): { entity: Entity; added: boolean } {
    const objectId = objectIdOf(target.name);
    const entity = this.#byId.get(objectId);
    if (!entity) {
      const added: Entity = { objectId, target, staleness: undefined, checkedImageId: undefined, inProgress: false };
      this.#byId.set(objectId, added);
      return { entity: added, added: true };
    }
    entity.target = target;
    if (entity.checkedImageId !== target.imageId) {
      entity.staleness = undefined;
      entity.checkedImageId = undefined;
    }
    return { entity, added: false };
  }

  /** A check's answer; a failed check keeps what the previous one said about the same image. */
  checked(target: Target, staleness: Staleness): { entity: Entity; added: boolean } {
    const seen = this.see(target);
    if (staleness.error === undefined || seen.entity.staleness === undefined) {
      seen.entity.staleness = staleness;
      seen.entity.checkedImageId = target.imageId;
    }
    return seen;
  }

  /**
   * Just updated to what the check called latest: up to date, whatever its new image says. After a tag
   * update the new tag is the current one (docs/mqtt.md#versions).
   */
  updated(target: Target, source: string, checked?: Staleness): Entity {
    const { entity } = this.see(target);
    const policy = readFinding(checked, FINDINGS.tags)?.policy;
    const tag = checked?.latestTag ?? readFinding(checked, FINDINGS.tags)?.currentTag;
    const facts = { ...(policy ? { policy } : {}), ...(tag ? { currentTag: tag } : {}) };
    const answer: Staleness = { source, stale: false };
    entity.staleness = Object.keys(facts).length > 0 ? withFinding(answer, FINDINGS.tags, facts) : answer;
    entity.checkedImageId = target.imageId;
    return entity;
  }

  remove(objectId: string): void {
    this.#byId.delete(objectId);
  }
}
