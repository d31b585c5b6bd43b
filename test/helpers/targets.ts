// Hand-built targets for unit tests of logic that has no real counterpart (core orchestration).
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
