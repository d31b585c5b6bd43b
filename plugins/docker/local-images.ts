// The runtime's local image store as the core's LOCAL_IMAGES service: what the no-pull source compares a
// container's image with, without the no-pull plugin knowing anything of Docker.
import type Docker from 'dockerode';
import type { EngineClient } from './engine-client.js';
import type { LocalImages } from '../../core/index.js';
import { isNotFound } from './engine-errors.js';

export function localImages(docker: EngineClient): LocalImages {
  return {
    async inspectImage(reference: string): Promise<{ id: string } | undefined> {
      try {
        return { id: (await docker.getImage(reference).inspect()).Id };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
  };
}
