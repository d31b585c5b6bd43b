// Versions and release notes in notification templates (docs/notifications.md#versions-and-release-notes):
// `.CurrentVersion`, `.LatestVersion` and `.ReleaseNotesURL` of a report entry, from the check's staleness
// (the registry's latestVersion, the release-notes plugin's location); empty for a container up to date.
import t from 'tap';
import type { EventPayloads, Staleness } from '../../../core/index.js';
import { runOutcome } from '../../../plugins/notify/outcome.js';
import { messageRenderer } from '../../../plugins/notify/render.js';
import { compileTemplate } from '../../../plugins/notify/template/index.js';
import { fakeTarget } from '../../helpers/targets.js';
import { asStaleness } from '../../helpers/staleness.js';

const VERSION = 'org.opencontainers.image.version';
const web = fakeTarget('web', { id: '1'.repeat(64), image: 'acme/web:latest', imageLabels: { [VERSION]: '2.3.0' } });
const db = fakeTarget('db', { id: '2'.repeat(64), image: 'acme/db:16', imageLabels: { [VERSION]: '16.4' } });
const stale: Staleness = asStaleness({
  source: 'registry', stale: true, latestDigest: `sha256:${'b'.repeat(64)}`, latestVersion: '2.4.0',
  releaseNotes: { url: 'https://github.com/acme/web/releases/tag/v2.4.0', entries: [] },
});
const fresh: Staleness = asStaleness({ source: 'registry', stale: false, latestVersion: 'ignored', releaseNotes: { url: 'https://ignored.example', entries: [] } });

t.test('.CurrentVersion, .LatestVersion and .ReleaseNotesURL in a report template', async (t) => {
  // An update run's report (a check gives the template no report, docs/notifications.md#the-report).
  const checks = [{ target: web, staleness: stale, checkedAt: new Date() }, { target: db, staleness: fresh, checkedAt: new Date() }];
  const run: EventPayloads['run_report'] = {
    run_id: 'u', kind: 'update',
    report: {
      runId: 'u', targeted: false, summary: { scanned: 2, updated: 0, failed: 0, restarted: 0, skipped: 0 },
      checks, results: [], skipped: [], startedAt: new Date(), finishedAt: new Date(),
    },
  };
  const outcome = runOutcome(run);
  const template = '{{range .Report.All}}{{.Name}}: {{.CurrentVersion}} -> [{{.LatestVersion}}] <{{.ReleaseNotesURL}}>\n{{end}}';
  const body = messageRenderer(compileTemplate(template), { host: 'box', titleTag: '', skipTitle: false, withReport: true })({ outcome, containers: outcome.containers, entries: outcome.entries }).body;
  t.match(body, /^\/web: 2\.3\.0 -> \[2\.4\.0\] <https:\/\/github\.com\/acme\/web\/releases\/tag\/v2\.4\.0>$/m, 'the leading `/` of Watchtower\'s .Name');
  t.match(body, 'web: 2.3.0 -> [2.4.0] <https://github.com/acme/web/releases/tag/v2.4.0>');
  t.match(body, 'db: 16.4 -> [] <>', 'up to date: no latest version, no notes');
});
