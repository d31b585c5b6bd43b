// Options several plugins read, declared once here so every reader shares one flag, one default and one
// help text: the server sees the same declaration in each plugin that lists it and keeps one option
// (docs/configuration.md#shared-options): Watchtower's selection filters and its per-container switches with a
// global flag.
import { option } from './option.js';
import { parseLabelPairs, stripSlash } from './option-parsers.js';

/** `https://host/path/`: absolute http(s), so a link a notification carries cannot be a script. */
function parsePublicUrl(raw: string): string {
  const text = raw.trim();
  if (text === '') return '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('expected an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('expected an absolute http:// or https:// URL');
  if (url.username || url.password) throw new Error('a public URL must not carry credentials');
  return url.toString();
}

const group = 'Update behaviour';
const selection = 'Container selection';
const state = 'State';

/**
 * The eight selection filters, read by the docker and swarm runtimes alike (containers and services), declared
 * once: a runtime spreads them into its options and hands their values to `core.applySelection`
 * (selection-rules.ts), which applies them. Their values are the `SelectionRules`.
 */
export const SELECTION_OPTIONS = Object.freeze({
  names: option.list({
    flag: 'container-names', env: null, positional: true, hidden: true, valueName: '<names>', item: stripSlash,
    group: selection, description: 'Container names (or anchored regular expressions) to watch; the positional arguments.',
  }),
  labelEnable: option.boolean({
    flag: 'label-enable', short: 'e', group: selection,
    description: 'Watch only containers labelled tidewatch.enable=true.',
  }),
  disableContainers: option.list({
    flag: 'disable-containers', short: 'x', valueName: '<names>', item: stripSlash, group: selection,
    description: 'Container names (or anchored regular expressions) to leave alone, comma or space separated.',
  }),
  // The fork's image and label filters (docs/watchtower-fork.md#selection-filters): each only ever
  // narrows what is watched, so none of them may be accepted and ignored.
  monitorImageNames: option.list({
    flag: 'monitor-image-names', valueName: '<patterns>', group: selection,
    description: 'Watch only containers whose image with its tag (nginx:latest) matches one of these anchored regular expressions.',
  }),
  skipImageNames: option.list({
    flag: 'skip-image-names', valueName: '<patterns>', group: selection,
    description: 'Leave alone containers whose image with its tag matches one of these anchored regular expressions.',
  }),
  enableContainersByLabel: option.list({
    flag: 'enable-containers-by-label', valueName: '<key=value,...>', parse: parseLabelPairs, group: selection,
    description: 'Watch only containers carrying at least one of these labels (key= : the label is present).',
  }),
  disableContainersByLabel: option.list({
    flag: 'disable-containers-by-label', valueName: '<key=value,...>', parse: parseLabelPairs, group: selection,
    description: 'Leave alone containers carrying any of these labels (key= : the label is present).',
  }),
  scope: option.string({
    flag: 'scope', valueName: '<scope>', group: selection,
    description: 'Watch only containers whose tidewatch.scope label equals this; unset or "none": containers without a scope.',
  }),
});

export const SHARED_OPTIONS = Object.freeze({
  ...SELECTION_OPTIONS,
  monitorOnly: option.boolean({
    flag: 'monitor-only', short: 'm', group,
    description: 'Report available updates, never apply them (also per container: label monitor-only).',
  }),
  noPull: option.boolean({
    flag: 'no-pull', group,
    description: 'Never contact registries or Git remotes; compare with the local image only (label no-pull).',
  }),
  labelTakePrecedence: option.boolean({
    flag: 'label-take-precedence', group,
    description: 'Let the monitor-only and no-pull labels override the global options.',
  }),
  // The one data directory every plugin that keeps state reads (docs/state.md); empty: memory only.
  dataDir: option.string({
    flag: 'data-dir', valueName: '<dir>', default: '', group: state,
    description: 'Where Tidewatch keeps its state across restarts (last checks, history, audit trail, holds); empty: memory only.',
  }),
  // Where people reach the dashboard: the links notifications carry (a pending approval's, docs/policies.md).
  publicUrl: option.string({
    flag: 'public-url', watchtowerEnv: null, valueName: '<url>', group: 'Update windows and approvals', parse: parsePublicUrl,
    description: 'Where people reach the dashboard (e.g. https://tidewatch.example/): the link of a pending approval in notifications.',
  }),
});
