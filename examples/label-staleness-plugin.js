// A third-party staleness source, loaded with `tidewatch --plugins ./examples/label-staleness-plugin.js`
// (or from the config file: `plugins: [{ path: ./examples/label-staleness-plugin.js, options: { label: … } }]`).
//
// It claims its own watch path, `label-staleness`, for containers labelled `example.pinned-digest=<sha256:…>`,
// and calls them stale when their image's registry digest is not that digest: a "release by label" workflow
// where a deploy tool writes the wanted digest onto the container and Tidewatch carries it out. Those
// containers show `"update_source": "label-staleness"` in /v1/check; every other container is left to the
// built-in sources. The label it reads is an option: `--label-staleness-label`, `TIDEWATCH_LABEL_STALENESS_LABEL`.
//
// Plain JavaScript on purpose: a plugin needs no build step. It imports Tidewatch's public surface only.
import { definePlugin, option } from 'tidewatch';

const PLUGIN_NAME = 'label-staleness';

export default definePlugin({
  name: PLUGIN_NAME,
  options: {
    label: option.string({
      flag: 'label-staleness-label',
      default: 'example.pinned-digest',
      group: 'Label staleness (example plugin)',
      description: 'Container label holding the digest the container should run.',
    }),
  },
  apply(core, options) {
    // The watch split: targets with the label are this plugin's, whatever other sources are loaded.
    core.claimWatchPath(PLUGIN_NAME, (target) => target.labels[options.label] !== undefined);
    core.hooks.checkStaleness.tapPromise(PLUGIN_NAME, async (target) => {
      if (core.watchPath(target) !== PLUGIN_NAME) return undefined;
      const wanted = target.labels[options.label];
      const current = target.repoDigests.map((entry) => entry.slice(entry.indexOf('@') + 1));
      return {
        source: PLUGIN_NAME,
        stale: !current.includes(wanted),
        currentDigest: current[0],
        latestDigest: wanted,
      };
    });
  },
});
