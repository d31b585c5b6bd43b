// The one builder of hand-made targets, for unit tests of logic that needs no engine (core orchestration,
// gates, sources): a test names only what it is about, and a field the Target type gains is added here once.
import type { Target } from '../../core/index.js';

export function fakeTarget(name: string, overrides: Partial<Target> = {}): Target {
  return {
    runtime: 'fake',
    id: `id-${name}`,
    name,
    image: `127.0.0.1:5101/demo/${name}:latest`,
    imageId: `sha256:${name.padEnd(64, '0').slice(0, 64)}`,
    repoDigests: [],
    labels: {},
    imageLabels: {},
    state: 'running',
    dependsOn: [],
    isSelf: false,
    ...overrides,
  };
}
