// The platform a target's image runs on, for the tag policies' platform check (docs/tags.md#platforms): the
// runtime's answer through LOCAL_IMAGES (a Docker image's Os/Architecture/Variant), read once per image and
// engine per run; this machine's platform when no runtime knows (a Swarm service's tasks run on many nodes).
import { errorMessage, type RunContext, type Target, type TidewatchCore } from '../../../core/index.js';
import { LOCAL_IMAGES } from '../../../contracts/index.js';
import { runningPlatformOf, type Platform } from './platforms.js';

export function runningPlatform(core: TidewatchCore): (target: Target, ctx: RunContext) => Promise<Platform> {
  return (target, ctx) =>
    ctx.memo(`registry:running-platform:${target.host ?? ''}:${target.imageId}`, async () => {
      const images = core.services.get(LOCAL_IMAGES);
      if (!images || target.kind === 'service' || !target.imageId) return runningPlatformOf(undefined);
      try {
        return runningPlatformOf((await images.inspectImage(target.imageId, ctx.signal, target.host))?.platform);
      } catch (err) {
        ctx.logger.debug({ container: target.name, err: errorMessage(err) }, 'image platform unknown, assuming this machine\'s');
        return runningPlatformOf(undefined);
      }
    });
}
