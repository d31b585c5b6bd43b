// The policies plugin's options (docs/policies.md): update windows, approvals, and where people reach the
// dashboard (for the approval link of a notification).
import { option, type OptionValues } from '../../core/index.js';
import { WINDOW_SEPARATOR, parseWindows } from './windows.js';

const group = 'Update windows and approvals';

export const APPROVAL_POLICIES = ['none', 'major', 'minor', 'all'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** `https://host/path/`: absolute http(s), so a notification's link cannot be a script. */
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
  publicUrl: option.string({
    flag: 'public-url', watchtowerEnv: null, valueName: '<url>', group, parse: parsePublicUrl,
    description: 'Where people reach the dashboard (e.g. https://tidewatch.example/): the link of a pending approval in notifications.',
  }),
};

export type PolicyOptions = OptionValues<typeof policyOptions>;
