// A webhook-started run names its trigger in the run report the notifiers read, and a report-mode
// notification template prints it as {{.Trigger}} (docs/notifications.md#the-data); `{{.}}` is unchanged.
import t from 'tap';
import { compileTemplate } from '../../../plugins/notify/template/index.js';
import { runOutcome } from '../../../plugins/notify/outcome.js';
import { messageRenderer } from '../../../plugins/notify/render.js';
import { fakeTarget } from '../../helpers/targets.js';
import { parseReceivers } from '../../../plugins/webhooks/receivers.js';
import { startHooks, waitFor } from './helpers/harness.js';

t.test('run_report carries webhook:<receiver>, and a template shows it', async (t) => {
  const app = fakeTarget('app', { runtime: 'stub', image: '127.0.0.1:5000/team/app:latest' });
  const h = await startHooks({ receivers: parseReceivers('ci=generic,token=tok,action=update', { origin: 'flag', cwd: '/' }), debounceMs: 20 }, [app]);
  t.teardown(() => h.close());
  t.equal((await h.post('/v1/hooks/ci', { repository: '127.0.0.1:5000/team/app', tag: 'latest' }, { authorization: 'Bearer tok' })).status, 202);
  await waitFor(() => h.events.some((e) => e.type === 'run_report'));
  const report = h.events.find((e) => e.type === 'run_report');
  if (report?.type !== 'run_report') throw new Error('no run report');
  t.equal(report.data.trigger, 'webhook:ci');
  t.same(report.data.actor, { kind: 'webhook', name: 'ci' }, 'the receiver is the run\'s actor (docs/people.md)');
  const outcome = runOutcome(report.data);
  t.equal(outcome.trigger, 'webhook:ci');
  const settings = { host: 'box', titleTag: '', skipTitle: false, withReport: true };
  const render = messageRenderer(compileTemplate('started by {{.Trigger}}: {{len .Report.All}} checked'), settings);
  t.equal(render({ outcome, containers: outcome.containers, entries: outcome.entries }).body, 'started by webhook:ci: 1 checked');
  const who = messageRenderer(compileTemplate('by {{.Actor}}'), settings);
  t.equal(who({ outcome, containers: outcome.containers, entries: outcome.entries }).body, 'by ci', '{{.Actor}} names who started the run');
  const whole = messageRenderer(compileTemplate('{{.Title}}|{{.Host}}'), settings);
  t.equal(whole({ outcome, containers: outcome.containers, entries: outcome.entries }).body, 'Tidewatch updates on box|box', 'fields unchanged');
});
