// A third-party staleness source, loaded with `tidewatch --plugins ./examples/label-staleness-plugin.js`.
//
// It claims containers labelled `example.pinned-digest=<sha256:…>` and calls them stale when their
// image's registry digest is not that digest: a "release by label" workflow where a deploy tool
// writes the wanted digest onto the container and Tidewatch carries it out. Every other container
// is left to the built-in sources (the hook is a bail hook: returning undefined passes it on).
//
// Plain JavaScript on purpose: a plugin needs no build step and imports nothing from Tidewatch.

const PLUGIN_NAME = 'label-staleness';
const LABEL = 'example.pinned-digest';

/** @type {import('tidewatch').TidewatchPlugin<{ label?: string }>} */
const labelStalenessPlugin = {
  name: PLUGIN_NAME,
  optionsSchema: {
    type: 'object',
    properties: { label: { type: 'string', minLength: 1, default: LABEL } },
    additionalProperties: false,
  },
  apply(core, options) {
    const label = options.label ?? LABEL;
    // stage -30: ask before the built-in Git (-20), no-pull and registry sources.
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: -30 }, async (target) => {
      const wanted = target.labels[label];
      if (wanted === undefined) return undefined;
      const current = target.repoDigests.map((entry) => entry.slice(entry.indexOf('@') + 1));
      return {
        source: PLUGIN_NAME,
        stale: !current.includes(wanted),
        currentDigest: current[0],
        latestDigest: wanted,
      };
    });
  },
};

export default labelStalenessPlugin;
