// The two retained messages of a container's update entity (docs/mqtt.md#payloads): its discovery config,
// in the keys of Home Assistant's MQTT update platform, and its JSON state.
import type { Staleness, Target } from '../../core/index.js';
import { OFFLINE, ONLINE, PAYLOAD_INSTALL, type Topics } from './topics.js';
import { installedVersion, latestVersion, releaseSummaryOf, releaseUrlOf, titleOf } from './versions.js';

export interface DiscoveryConfig {
  readonly name: string;
  readonly unique_id: string;
  readonly state_topic: string;
  readonly command_topic: string;
  readonly payload_install: string;
  readonly availability_topic: string;
  readonly payload_available: string;
  readonly payload_not_available: string;
  readonly device: {
    readonly identifiers: readonly string[];
    readonly name: string;
    readonly manufacturer: string;
    readonly model: string;
  };
  readonly origin: { readonly name: string };
}

export interface EntityState {
  readonly installed_version: string;
  /** Absent until a check answered (Home Assistant then shows the version as unknown). */
  readonly latest_version?: string;
  readonly title: string;
  readonly release_url?: string;
  /** The releases an update brings (docs/versions.md#release-notes), at most 255 characters. */
  readonly release_summary?: string;
  readonly in_progress: boolean;
}

export function discoveryConfig(topics: Topics, objectId: string, name: string): DiscoveryConfig {
  return {
    name,
    unique_id: `${topics.node}_${objectId}`,
    state_topic: topics.state(objectId),
    command_topic: topics.command(objectId),
    payload_install: PAYLOAD_INSTALL,
    availability_topic: topics.availability,
    payload_available: ONLINE,
    payload_not_available: OFFLINE,
    device: {
      identifiers: [topics.node],
      name: topics.node === 'tidewatch' ? 'Tidewatch' : `Tidewatch ${topics.node}`,
      manufacturer: 'Tidewatch',
      model: 'Container updates',
    },
    origin: { name: 'Tidewatch' },
  };
}

export function entityState(target: Target, staleness: Staleness | undefined, inProgress: boolean): EntityState {
  const latest = latestVersion(target, staleness);
  const releaseUrl = releaseUrlOf(target, staleness);
  const summary = releaseSummaryOf(staleness);
  return {
    installed_version: installedVersion(target, staleness),
    ...(latest === undefined ? {} : { latest_version: latest }),
    title: titleOf(target),
    ...(releaseUrl === undefined ? {} : { release_url: releaseUrl }),
    ...(summary === undefined ? {} : { release_summary: summary }),
    in_progress: inProgress,
  };
}
