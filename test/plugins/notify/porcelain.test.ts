// --porcelain json renders the fork's porcelain.json template and, as in the fork, only when no template is given.
import t from 'tap';
import { templateSource } from '../../../plugins/notify/start.js';
import type { NotifyOptionValues } from '../../../plugins/notify/options.js';

const options = (o: Partial<NotifyOptionValues>) =>
  ({ notificationTemplateFile: '', notificationTemplate: '', porcelain: '', notificationReport: false, ...o }) as NotifyOptionValues;

t.test('the template --porcelain chooses, and an explicit template winning', async (t) => {
  t.equal(await templateSource(options({ porcelain: 'json' })), 'porcelain.json');
  t.equal(await templateSource(options({ porcelain: 'v1' })), 'porcelain.v1.summary-no-log');
  t.equal(await templateSource(options({ porcelain: 'json', notificationTemplate: '{{ .Title }}' })), '{{ .Title }}');
  t.equal(await templateSource(options({ porcelain: 'v1', notificationTemplate: 'json.v1' })), 'json.v1');
});
