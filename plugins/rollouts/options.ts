// The rollouts plugin's one option (docs/rollouts.md): how long a stage's replacements must stay up before the
// next stage goes. The stages themselves are the hosts' (`?stage=N` on a --host entry, docs/hosts.md).
import { option, type OptionValues } from '../../core/index.js';

export const rolloutOptions = {
  rolloutSoak: option.duration({
    flag: 'rollout-soak', default: 0, watchtowerEnv: null, group: 'Staged rollouts',
    description:
      'How long every replacement of a rollout stage must stay running and healthy before the next stage is updated ' +
      '(a Go duration, e.g. 30m; the wait spans runs and restarts). Stages are the hosts\' ?stage=N (docs/rollouts.md).',
  }),
};

export type RolloutOptions = OptionValues<typeof rolloutOptions>;
