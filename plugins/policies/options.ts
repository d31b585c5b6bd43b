// The policies plugin's options (docs/policies.md): update windows, approvals, and where people reach the
// dashboard (for the approval link of a notification).
import { SHARED_OPTIONS, option, type OptionValues } from '../../core/index.js';
import { WINDOW_SEPARATOR, parseWindows } from './windows.js';

const group = 'Update windows and approvals';

export const APPROVAL_POLICIES = ['none', 'major', 'minor', 'all'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export const policyOptions = {
  updateWindows: option.custom<string[]>({
    flag: 'update-window', env: 'UPDATE_WINDOW', watchtowerEnv: null, fileKey: 'update-windows', kind: 'list', join: WINDOW_SEPARATOR,
    default: [], valueName: '<cron;duration[;tz]>', group,
    // Parsed here so that a wrong window exits 2 at start-up naming the option; kept as written.
    parse: (raw) => parseWindows(raw).map((w) => w.text),
    schema: { type: 'array', items: { type: 'string' } },
    description:
      'When runs may apply updates: CRON;DURATION[;TZ], a window opening at each CRON time (5 fields) for DURATION (e.g. ' +
      '"0 3 * * *;2h;Europe/Berlin"); repeatable, or several separated by |; always (the default) is no window. ' +
      'A person\'s targeted update applies at once.',
  }),
  approval: option.enum<ApprovalPolicy>({
    flag: 'approval', values: APPROVAL_POLICIES, default: 'none', watchtowerEnv: null, group,
    description: 'Updates that wait for a person: none, major, minor (minor and major) or all (digest updates too).',
  }),
  publicUrl: SHARED_OPTIONS.publicUrl,
};

export type PolicyOptions = OptionValues<typeof policyOptions>;
