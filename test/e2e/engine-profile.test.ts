// The engine profile (docs/engines.md#the-engine-profile) as the runtime makes it from the real engines of the test
// environment: Debian's Docker (classic store), Docker 26.1, Docker 28.5 with the containerd store and without, and
// Podman's compatible API. Each answer is the one the engine's own behaviour needs (docs/engines.md, docs/podman.md);
// the engine scenarios (test/e2e/engine-versions-*.test.ts, test/e2e/podman*.test.ts) prove the behaviour itself.
import t, { type Test } from 'tap';
import { createDockerClient } from '../../plugins/docker/engine/connect.js';
import { createRuntime } from '../../plugins/docker/runtime.js';
import type { ResolvedDockerOptions } from '../../plugins/docker/options.js';
import type { EngineProfile } from '../../plugins/docker/engine/profile.js';
import { requireDocker26, requireDocker28, requireEnv } from '../helpers/env.js';
import { requirePodman } from '../helpers/podman.js';
import { memoryLogger } from '../helpers/memory-logger.js';

async function profileOf(t: Test, host: string, apiVersion?: string): Promise<EngineProfile> {
  const docker = createDockerClient({ host, ...(apiVersion ? { apiVersion } : {}) });
  const options = { apiVersion } as unknown as ResolvedDockerOptions;
  const rt = createRuntime(docker, options, memoryLogger(), () => undefined);
  const first = await rt.profile();
  t.equal(await rt.profile(), first, 'made once per engine');
  return first;
}

t.test("Debian's Docker: classic store, config digests for image ids, Docker's inspect", async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const p = await profileOf(t, env.dockerHost);
  t.equal(p.kind, 'docker');
  t.match(p.version, /^\d+\.\d+/);
  t.match(p.apiVersion, /^1\.\d+$/);
  t.equal(p.imageStore, 'classic');
  t.equal(p.keepsImageIdAsManifestDigest, false);
  t.equal(p.showsOwnDefaultsInInspect, false);
  t.equal(p.forcedImageRemovalRemovesContainers, false);
  t.equal(p.reportsImageEvents, true);
  const pinned = await profileOf(t, env.dockerHost, '1.41');
  t.equal(pinned.apiVersion, '1.41', 'a pinned API version is the one in use');
  t.equal(pinned.createsWithSeveralNetworks, false);
});

t.test('Docker 26.1 (API 1.45): several networks at create time, MACs still 02:42', async (t) => {
  const env = await requireDocker26(t);
  if (!env) return;
  const p = await profileOf(t, env.docker26Host);
  t.match(p.version, /^26\.1/);
  t.equal(p.apiVersion, '1.45');
  t.equal(p.createsWithSeveralNetworks, true);
  t.equal(p.generatesRandomMacs, false);
  t.equal(p.supportsGatewayPriority, false);
});

for (const store of ['store', 'classic'] as const) {
  t.test(`Docker 28.5 (${store}): random MACs, gateway priority, the image ID a pulled digest only with the containerd store`, async (t) => {
    const found = await requireDocker28(t, store);
    if (!found) return;
    const p = await profileOf(t, found.engine.host);
    t.match(p.version, /^28\.5/);
    t.equal(p.generatesRandomMacs, true);
    t.equal(p.supportsGatewayPriority, true);
    t.equal(p.imageStore, store === 'store' ? 'containerd' : 'classic');
    t.equal(p.keepsImageIdAsManifestDigest, store === 'store');
  });
}

t.test("Podman's compatible API: its own values in an inspect, no forced image removal, no image facts kept", async (t) => {
  const env = await requirePodman(t);
  if (!env) return;
  const p = await profileOf(t, env.podmanHost);
  t.equal(p.kind, 'podman');
  t.equal(p.imageStore, 'classic');
  t.equal(p.showsOwnDefaultsInInspect, true);
  t.equal(p.showsUnsetStopTimeoutAsZero, true);
  t.equal(p.showsCpuLimitTwice, true);
  t.equal(p.forcedImageRemovalRemovesContainers, true);
  t.equal(p.reportsImageEvents, false);
});
