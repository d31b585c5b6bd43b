// Engine profiles (plugins/docker/engine/profile.ts) as real engines' answers make them, for unit tests of the parts
// that ask a profile: Docker on a given API version (classic image store unless told), Podman's compatible API.
import { engineProfile, type EngineProfile } from '../../plugins/docker/engine/profile.js';

const CONTAINERD_INFO = { DriverStatus: [['driver-type', 'io.containerd.snapshotter.v1']] };

export function dockerProfile(apiVersion: string, store: 'classic' | 'containerd' = 'classic'): EngineProfile {
  return engineProfile({
    version: { Version: '28.5.1', ApiVersion: apiVersion, Components: [{ Name: 'Engine' }, { Name: 'containerd' }] },
    info: store === 'containerd' ? CONTAINERD_INFO : { DriverStatus: [['Backing Filesystem', 'extfs']] },
  });
}

export function podmanProfile(apiVersion = '1.41'): EngineProfile {
  return engineProfile({ version: { Version: '4.3.1', ApiVersion: apiVersion, Components: [{ Name: 'Podman Engine' }, { Name: 'Conmon' }] } });
}
