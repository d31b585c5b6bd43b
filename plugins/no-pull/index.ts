// The no-pull staleness source (`--no-pull`, label `no-pull`): a registry-watched container is stale
// when the local image its tag names now differs from the image it runs. The registry is never
// contacted. Local images are read through the core's LOCAL_IMAGES service, which the runtime plugin
// provides, so this plugin knows nothing of Docker. Git-watched containers are the git plugin's (it
// taps earlier and decides what no-pull means for them).
import {
  LOCAL_IMAGES,
  errorMessage,
  getService,
  isGitWatched,
  labelOrGlobal,
  type JsonSchema,
  type RunContext,
  type Staleness,
  type Target,
  type TidewatchCore,
  type TidewatchPlugin,
} from '../../core/index.js';

export const PLUGIN_NAME = 'no-pull';
/** Before the registry source (stage 0), after the git source (stage -20). */
export const NO_PULL_STAGE = -10;
/** The staleness path is still the registry path (`update_source: registry`); only the comparison is local. */
const SOURCE = 'registry';

export interface NoPullPluginOptions {
  /** Global `--no-pull`. Default false. */
  noPull?: boolean;
  /** `--label-take-precedence`: a set `no-pull` label decides alone instead of being OR-ed with the flag. */
  labelTakePrecedence?: boolean;
}

const optionsSchema: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    noPull: { type: 'boolean', default: false },
    labelTakePrecedence: { type: 'boolean', default: false },
  },
  additionalProperties: false,
});

/** Watchtower's rule: label OR flag; with label precedence a set label wins. */
export function isNoPull(target: Target, options: NoPullPluginOptions): boolean {
  return labelOrGlobal(target.labels, 'no-pull', options.noPull === true, options.labelTakePrecedence === true);
}

async function localStaleness(core: TidewatchCore, target: Target, ctx: RunContext): Promise<Staleness> {
  const images = getService(core, LOCAL_IMAGES);
  if (!images) {
    return { source: SOURCE, stale: false, error: 'no-pull: no runtime plugin provides local image inspection' };
  }
  try {
    // Several containers of one tag share one inspection per run.
    const local = await ctx.memo(`no-pull:inspect:${target.runtime}:${target.image}`, () =>
      images.inspectImage(target.image, ctx.signal),
    );
    if (!local) return { source: SOURCE, stale: false, error: `no-pull: no local image ${target.image}` };
    return { source: SOURCE, stale: local.id !== target.imageId, latestImageId: local.id };
  } catch (err) {
    return { source: SOURCE, stale: false, error: `no-pull: cannot inspect ${target.image}: ${errorMessage(err)}` };
  }
}

export const noPullPlugin: TidewatchPlugin<NoPullPluginOptions> = {
  name: PLUGIN_NAME,
  optionsSchema,
  apply(core, options) {
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: NO_PULL_STAGE }, async (target, ctx) => {
      if (isGitWatched(target.labels) || !isNoPull(target, options)) return undefined;
      return localStaleness(core, target, ctx);
    });
  },
};
