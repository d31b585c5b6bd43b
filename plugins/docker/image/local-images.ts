// The runtime's local image store as the core's LOCAL_IMAGES service: what the no-pull source compares a
// container's image with, without the no-pull plugin knowing anything of Docker.
import type Docker from 'dockerode';
import type { EngineClient } from '../engine/client.js';
import type { LocalImage, LocalImages } from '../contracts.js';
import { isNotFound } from '../engine/errors.js';

export function localImages(docker: EngineClient): LocalImages {
  return {
    async inspectImage(reference: string): Promise<LocalImage | undefined> {
      try {
        const image = (await docker.getImage(reference).inspect()) as Docker.ImageInspectInfo & { Variant?: string };
        // The platform too: the registry's tag policies keep a container on its own (docs/tags.md).
        const platform = image.Os && image.Architecture ? [image.Os, image.Architecture, image.Variant].filter(Boolean).join('/') : undefined;
        return { id: image.Id, ...(platform ? { platform } : {}) };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
  };
}
