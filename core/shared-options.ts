// Options several plugins read, declared once here so every reader shares one flag, one default and one
// help text: the server sees the same declaration in each plugin that lists it and keeps one option
// (docs/configuration.md#shared-options). They are Watchtower's per-container switches with a global flag.
import { option } from './option.js';

const group = 'Update behaviour';

export const SHARED_OPTIONS = Object.freeze({
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
});
