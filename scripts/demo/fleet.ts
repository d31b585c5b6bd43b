// The demo's containers: small busybox images built in Node and pushed to the demo's registry the way the
// tests make theirs (test/helpers/images.ts), one container each, then newer images for some of them, so
// that the first check has something to report (docs/demo.md).
import type Docker from 'dockerode';
import { pullImage, pushImage, runContainer, type PushedImage } from '../../test/helpers/images.js';
import { registry, type DemoConfig } from './config.js';

/**
 * Stops at once on SIGTERM (busybox sleep as PID 1 ignores it; `wait` does not), so an update replaces a
 * container in about a second, and runs until stopped.
 */
const SERVICE_CMD = ['/bin/sh', '-c', "trap 'exit 0' TERM; while true; do sleep 3600 & wait; done"];

export interface DemoContainer {
  /** container name */
  name: string;
  /** repository in the demo registry */
  repo: string;
  /** true: tagged by version (`repo:2.3.0`, the newer one `repo:2.4.0`) under a tag policy; else `latest` */
  versionTags?: boolean;
  /** what it shows about Tidewatch */
  role: string;
  /** the version it starts on, and the newer one pushed afterwards (none: it stays up to date) */
  version: string;
  newer?: string;
  labels?: Record<string, string>;
}

export const DEMO_CONTAINERS: readonly DemoContainer[] = [
  {
    name: 'demo-web', repo: 'demo/web', role: 'newer image under latest: its version label and release-notes link', version: '1.0.0', newer: '1.1.0',
    // A release-notes location (docs/versions.md#release-notes); not on GitHub, so nothing is asked of a code host.
    labels: { 'tidewatch.release-notes': 'https://tidewatch.example/demo/web/releases/{version}' },
  },
  {
    name: 'demo-api', repo: 'demo/api', role: 'tag policy minor: moves to the newer tag', version: '2.3.0', newer: '2.4.0', versionTags: true,
    labels: { 'tidewatch.tag.policy': 'minor' },
  },
  { name: 'demo-db', repo: 'demo/db', role: 'up to date', version: '16.4' },
  {
    name: 'demo-worker', repo: 'demo/worker', role: 'monitor-only: reported, never replaced', version: '0.9.0', newer: '1.0.0',
    labels: { 'tidewatch.monitor-only': 'true' },
  },
  {
    name: 'demo-legacy', repo: 'demo/legacy', role: 'opted out (tidewatch.enable=false): ignored', version: '3.1.0', newer: '3.2.0',
    labels: { 'tidewatch.enable': 'false' },
  },
];

/** The tag an image of `container` at `version` is pushed under. */
export function tagOf(container: DemoContainer, version: string): string {
  return container.versionTags ? version : 'latest';
}

function imageFor(config: DemoConfig, container: DemoContainer, version: string, created: string): Promise<PushedImage> {
  return pushImage({
    registry: registry(config),
    repo: container.repo,
    marker: `${container.repo} ${version}`,
    tag: tagOf(container, version),
    cmd: SERVICE_CMD,
    created,
    labels: {
      'org.opencontainers.image.title': container.name,
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.description': `Tidewatch demo image (${container.role})`,
    },
  });
}

/** Pushes each container's first image, pulls it into the engine and runs the container. */
export async function startFleet(config: DemoConfig, docker: Docker): Promise<void> {
  for (const container of DEMO_CONTAINERS) {
    const image = await imageFor(config, container, container.version, '2026-01-05T09:00:00Z');
    await pullImage(docker, image.ref);
    await runContainer(docker, { name: container.name, image: image.ref, labels: container.labels ?? {}, stopTimeout: 5 });
  }
}

/** Pushes the newer images under the same tag: the registry now has something the engine does not. */
export async function pushNewerImages(config: DemoConfig): Promise<DemoContainer[]> {
  const bumped = DEMO_CONTAINERS.filter((c) => c.newer !== undefined);
  for (const container of bumped) await imageFor(config, container, container.newer!, '2026-02-02T09:00:00Z');
  return bumped;
}
