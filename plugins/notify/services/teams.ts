// `teams://?host=<Power Automate workflow URL>[&title=…][&color=…]`: a Teams workflow webhook, sent an
// Adaptive Card with the title as a bold header and one text block per line (docs/notifications.md#services).
// The retired Office 365 connector URLs are refused at start-up.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, expectStatus, httpCall, trimBase } from './http.js';
import { UrlQuery } from './query.js';

export interface TeamsOptions {
  /**
   * Test only: the origin the workflow's requests go to instead of its own host (its path and query are
   * kept). Unset in production, where the workflow URL is the target.
   */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

/** The workflow hosts Teams hands out (Logic Apps and Power Platform environments). */
const WORKFLOW_URL = new RegExp(
  '^https://[a-zA-Z0-9][a-zA-Z0-9.-]*\\.logic\\.azure(?:\\.[a-z]{2,})?(:\\d+)?/(?:powerautomate/automations/direct/(?:[A-Za-z0-9-]+/)*)?workflows/|' +
    '^https://[a-zA-Z0-9][a-zA-Z0-9.-]*\\.environment\\.api\\.powerplatform\\.com(:\\d+)?/powerautomate/automations/direct/(?:[A-Za-z0-9-]+/)*workflows/',
);

export function createTeamsService(options: TeamsOptions = {}): NotificationService {
  const base = options.baseUrl === undefined ? undefined : trimBase(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['teams'], parse: (url) => parseTeams(url, base, timeoutMs) };
}

/** Teams' colour names, and the common names shoutrrr maps onto them. */
export function teamsColor(color: string): string {
  switch (color.toLowerCase()) {
    case 'red': case 'attention': case 'danger': return 'attention';
    case 'orange': case 'yellow': case 'warning': case 'warn': return 'warning';
    case 'green': case 'good': case 'success': return 'good';
    case 'blue': case 'accent': return 'accent';
    case 'dark': return 'dark';
    case 'light': return 'light';
    default: return 'default';
  }
}

function parseTeams(url: URL, base: string | undefined, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'teams');
  const host = q.get('host') ?? '';
  const configTitle = q.get('title') ?? '';
  const color = q.get('color') ?? '';
  // Unknown parameters are ignored, as shoutrrr does for teams.
  if (host === '') throw q.bad('no workflow URL given (teams://?host=<workflow URL>)');
  if (!WORKFLOW_URL.test(host)) throw q.bad('host is not a Power Automate workflow URL (https://….logic.azure.com/…/workflows/…)');
  const workflow = new URL(host);
  const endpoint = base === undefined ? workflow.href : `${base}${workflow.pathname}${workflow.search}`;
  const secrets = [host, workflow.search.slice(1), ...[...workflow.searchParams.values()], ...workflow.pathname.split('/')].filter(
    (s) => s.length >= 8,
  );
  const params = new URLSearchParams();
  for (const [k, v] of url.searchParams) params.append(k, k.toLowerCase() === 'host' ? 'REDACTED' : v);
  const redacted = `teams://?${params.toString()}`;

  return {
    service: 'teams',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const body = JSON.stringify(teamsPayload(message.body, message.title || configTitle, color));
      const answer = await httpCall('teams', { url: endpoint, headers: { 'Content-Type': 'application/json' }, body, timeoutMs }, signal, secrets);
      expectStatus('teams', answer, secrets, [200, 202]);
    },
  };
}

/** A message with one Adaptive Card: the title block (if any), then a wrapped block per non-blank line. */
export function teamsPayload(text: string, title: string, color: string): Record<string, unknown> {
  const body: Array<Record<string, unknown>> = [];
  if (title !== '') body.push({ type: 'TextBlock', text: title, color: teamsColor(color), weight: 'Bolder', size: 'Medium' });
  for (const line of text.split('\n')) if (line.trim() !== '') body.push({ type: 'TextBlock', text: line, wrap: true });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.2', body },
      },
    ],
  };
}
