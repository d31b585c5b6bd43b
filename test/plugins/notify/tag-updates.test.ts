// Tag updates in notifications (docs/notifications.md#tag-updates): the default texts (`default-legacy`
// without --notification-report, `default` with it) say `nginx 1.25.3-alpine → 1.25.4-alpine (patch)` and
// the note (the Compose file that still names the old tag); a digest update reads as before.
import t from 'tap';
import type { ApplyResult, CheckResult, EventPayloads, Staleness } from '../../../core/index.js';
import { runOutcome } from '../../../plugins/notify/outcome.js';
import { messageRenderer } from '../../../plugins/notify/render.js';
import { compileTemplate } from '../../../plugins/notify/template/index.js';
import { fakeTarget } from '../../helpers/targets.js';
import { asStaleness } from '../../helpers/staleness.js';

const OLD = `sha256:${'a'.repeat(64)}`;
const NEW = `sha256:${'b'.repeat(64)}`;
const NOTE = 'Compose file /srv/app/compose.yml (service web) still names nginx:1.25.3-alpine.';

const web = fakeTarget('web', { id: '1'.repeat(64), imageId: OLD, image: 'nginx:1.25.3-alpine' });
const redis = fakeTarget('redis', { id: '2'.repeat(64), imageId: OLD, image: 'redis:7' });
const tagged: Staleness = asStaleness({ source: 'registry', stale: true, currentTag: '1.25.3-alpine', latestTag: '1.25.4-alpine', updateKind: 'patch', latestDigest: NEW });
const digest: Staleness = asStaleness({ source: 'registry', stale: true, currentTag: '7', updateKind: 'digest', latestDigest: NEW });

function updateRun(): EventPayloads['run_report'] {
  const checks: CheckResult[] = [
    { target: web, staleness: tagged, checkedAt: new Date() },
    { target: redis, staleness: digest, checkedAt: new Date() },
  ];
  const results: ApplyResult[] = [
    { target: web, outcome: 'updated', oldImageId: OLD, newImageId: NEW, note: NOTE },
    { target: redis, outcome: 'updated', oldImageId: OLD, newImageId: NEW },
  ];
  return {
    run_id: 'u', kind: 'update',
    report: { runId: 'u', targeted: false, startedAt: new Date(), finishedAt: new Date(), summary: { scanned: 2, updated: 2, failed: 0, restarted: 0, skipped: 0 }, checks, results, skipped: [] },
  };
}

const render = (template: string, withReport: boolean) => {
  const outcome = runOutcome(updateRun());
  return messageRenderer(compileTemplate(template), { host: 'box', titleTag: '', skipTitle: false, withReport })({ outcome, containers: outcome.containers, entries: outcome.entries }).body;
};

t.test('default-legacy (the default): the entries name the version change and the note', async (t) => {
  const body = render('default-legacy', false);
  t.match(body, 'Updated /web from aaaaaaaaaaaa to bbbbbbbbbbbb: nginx 1.25.3-alpine → 1.25.4-alpine (patch)');
  t.match(body, NOTE);
  t.match(body, /Updated \/redis from aaaaaaaaaaaa to bbbbbbbbbbbb \|/, 'a digest update reads as before');
  t.notMatch(body, /redis 7 →/);
});

t.test('default (report mode): the updated line carries the version change, the note below it', async (t) => {
  const body = render('default', true);
  t.match(body, `- /web (nginx:1.25.3-alpine): aaaaaaaaaaaa updated to bbbbbbbbbbbb: 1.25.3-alpine → 1.25.4-alpine (patch)\n  ${NOTE}`);
  t.match(body, /- \/redis \(redis:7\): aaaaaaaaaaaa updated to bbbbbbbbbbbb(\n|$)/, 'a digest update reads as before');
});

t.test('a check run: the stale tag update is announced with its version change', async (t) => {
  const outcome = runOutcome({ run_id: 'c', kind: 'check', report: { runId: 'c', results: [{ target: web, staleness: tagged, checkedAt: new Date() }], startedAt: new Date(), finishedAt: new Date() } });
  t.match(outcome.entries[0]?.message, 'Found new nginx:1.25.3-alpine image (bbbbbbbbbbbb): nginx 1.25.3-alpine → 1.25.4-alpine (patch)');
  t.same(
    { currentTag: outcome.containers[0]?.currentTag, latestTag: outcome.containers[0]?.latestTag, updateKind: outcome.containers[0]?.updateKind },
    { currentTag: '1.25.3-alpine', latestTag: '1.25.4-alpine', updateKind: 'patch' },
  );
});
