// The no-pull staleness source (`--no-pull`, label `no-pull`): a registry-watched container is stale
// when the local image its tag names now differs from the image it runs. The registry is never
// contacted. Local images are read through the core's LOCAL_IMAGES service, which the runtime plugin
// provides, so this plugin knows nothing of Docker. It answers only on the registry watch path, from
// local state, so it taps before any remote source (docs/plugins.md#stages).
import {
  REGISTRY_PATH,
  SHARED_OPTIONS,
  STAGES,
  definePlugin,
  errorMessage,
  type OptionValues,
  type RunContext,
  type Staleness,
  type Target,
} from '../../core/index.js';
import { labelOrGlobal } from '../../contracts/shared/labels.js';
import { LOCAL_IMAGES, type LocalImages } from '../../contracts/index.js';

export const PLUGIN_NAME = 'no-pull';

const noPullOptions = {
  noPull: SHARED_OPTIONS.noPull,
  labelTakePrecedence: SHARED_OPTIONS.labelTakePrecedence,
};
export type NoPullPluginOptions = Partial<OptionValues<typeof noPullOptions>>;

/** Watchtower's rule: label OR flag; with label precedence a set label wins. */
export function isNoPull(target: Target, options: NoPullPluginOptions): boolean {
  return labelOrGlobal(target.labels, 'no-pull', options.noPull === true, options.labelTakePrecedence === true);
}

async function localStaleness(images: LocalImages, target: Target, ctx: RunContext): Promise<Staleness> {
  try {
    // Several containers of one tag on one engine share one inspection per run; each engine has its own
    // image store (docs/hosts.md).
    const local = await ctx.memo(`no-pull:inspect:${target.runtime}:${target.host ?? ''}:${target.image}`, () =>
      images.inspectImage(target.image, ctx.signal, target.host),
    );
    if (!local) return { source: REGISTRY_PATH, stale: false, error: `no-pull: no local image ${target.image}` };
    return { source: REGISTRY_PATH, stale: local.id !== target.imageId, latestImageId: local.id };
  } catch (err) {
    return { source: REGISTRY_PATH, stale: false, error: `no-pull: cannot inspect ${target.image}: ${errorMessage(err)}` };
  }
}

export const noPullPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: noPullOptions,
  requires: [LOCAL_IMAGES],
  apply(core, options) {
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: STAGES.checkStaleness.local }, async (target, ctx) => {
      if (core.watchPath(target) !== REGISTRY_PATH || !isNoPull(target, options)) return undefined;
      return localStaleness(core.services.require(LOCAL_IMAGES), target, ctx);
    });
  },
});
