// Where everything is published (docs/mqtt.md#topics). A container's object id comes from its name, which
// survives updates (its id does not), made safe for Home Assistant's `[A-Za-z0-9_-]`.
import { createHash } from 'node:crypto';

export const PAYLOAD_INSTALL = 'install';
export const ONLINE = 'online';
export const OFFLINE = 'offline';

/**
 * The container's name where it is already safe; otherwise the safe characters plus a short hash of the
 * name, so that `web.1` and `web_1` never share an entity.
 */
export function objectIdOf(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe === name && safe !== '') return name;
  return `${safe}_${createHash('sha256').update(name).digest('hex').slice(0, 6)}`;
}

export class Topics {
  constructor(
    readonly prefix: string,
    readonly discoveryPrefix: string,
    /** The discovery node id (the client id). */
    readonly node: string,
  ) {}

  get availability(): string {
    return `${this.prefix}/availability`;
  }

  state(objectId: string): string {
    return `${this.prefix}/${objectId}/state`;
  }

  command(objectId: string): string {
    return `${this.prefix}/${objectId}/command`;
  }

  /** Every entity's command topic, to subscribe to. */
  get commands(): string {
    return `${this.prefix}/+/command`;
  }

  config(objectId: string): string {
    return `${this.discoveryPrefix}/update/${this.node}/${objectId}/config`;
  }

  /** This node's every discovery config, to learn which retained ones are on the broker. */
  get configs(): string {
    return `${this.discoveryPrefix}/update/${this.node}/+/config`;
  }

  /** The object id of a command or config topic of this node, or undefined. */
  objectIdIn(topic: string): { kind: 'command' | 'config'; objectId: string } | undefined {
    const levels = topic.split('/');
    const prefix = this.prefix.split('/');
    if (levels.length === prefix.length + 2 && levels.at(-1) === 'command' && topic.startsWith(`${this.prefix}/`)) {
      return { kind: 'command', objectId: levels[prefix.length]! };
    }
    const discovery = `${this.discoveryPrefix}/update/${this.node}/`;
    if (topic.startsWith(discovery) && topic.endsWith('/config')) {
      const objectId = topic.slice(discovery.length, -'/config'.length);
      if (objectId !== '' && !objectId.includes('/')) return { kind: 'config', objectId };
    }
    return undefined;
  }
}
