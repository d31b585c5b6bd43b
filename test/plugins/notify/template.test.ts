// The template API (docs/notifications.md, "Templates"): built-in names, coded parse and exec errors
// with positions, the data model (short ids, All, times, JSON), and empty rendering. Semantics against
// Go itself are in template-parity.test.ts.
import t from 'tap';
import { TidewatchError } from '../../../core/index.js';
import {
  ContainerReport,
  GoTime,
  ImageID,
  LogEntry,
  NotificationData,
  Report,
  TemplateExecError,
  TemplateParseError,
  builtinTemplates,
  compileTemplate,
  renderTemplate,
  resolveTemplate,
  shortID,
} from '../../../plugins/notify/template/index.js';

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const web = new ContainerReport({
  id: 'c2'.padEnd(64, '0'),
  name: '/web',
  imageName: 'nginx:latest',
  currentImageId: digest('a'),
  latestImageId: digest('b'),
  state: 'Updated',
});
const db = new ContainerReport({
  id: 'c1'.padEnd(64, '0'),
  name: '/db',
  imageName: 'postgres:16',
  currentImageId: digest('c'),
  latestImageId: digest('c'),
  state: 'Failed',
  error: 'pull failed',
});
const time = new Date('2025-08-20T13:00:13.5Z');
const entry = new LogEntry({ level: 'info', message: 'Found new image', time, data: { image: 'nginx:latest', new_id: 'bbbbbbbbbbbb' } });
const data = new NotificationData({
  title: '[prod] Tidewatch updates on box',
  host: 'box',
  entries: [entry],
  report: new Report({ scanned: [web, db], updated: [web], failed: [db] }),
});

t.test('a built-in name resolves to its text; anything else is an inline template', async (t) => {
  t.equal(resolveTemplate('json.v1'), '{{ . | ToJSON }}');
  t.equal(resolveTemplate('{{.Host}}'), '{{.Host}}');
  t.same(Object.keys(builtinTemplates).sort(), ['default', 'default-legacy', 'json.v1', 'porcelain.json', 'porcelain.v1.summary-no-log']);
  t.equal(
    renderTemplate('default', data),
    '2 Scanned, 1 Updated, 0 Restarted, 1 Failed, 0 Fresh, 0 Skipped\n' +
      '- /web (nginx:latest): aaaaaaaaaaaa updated to bbbbbbbbbbbb\n' +
      '- /db (postgres:16): Failed: pull failed',
  );
  t.equal(renderTemplate('default-legacy', data.Entries), 'Found new image: nginx:latest (bbbbbbbbbbbb)');
  t.equal(renderTemplate('porcelain.v1.summary-no-log', data), '/db (postgres:16): Failed Error: pull failed\n/web (nginx:latest): Updated\n');
  t.equal(renderTemplate('{{.Title}} on {{.Host | ToUpper}}', data), '[prod] Tidewatch updates on box on BOX');
});

t.test('a template can render empty, which the notifier takes as "send nothing"', async (t) => {
  const empty = new NotificationData({ title: 'x', host: 'h' });
  t.equal(renderTemplate('default', empty), '');
  t.equal(renderTemplate('default-legacy', []), '');
  t.equal(renderTemplate('{{range .Report.Updated}}{{.Name}}{{end}}', new NotificationData({ title: 'x', host: 'h', report: new Report() })), '');
});

t.test('a parse error is TW_ERR_TEMPLATE_PARSE with the line, found when compiling', async (t) => {
  const bad = 'line one\n{{if .Report}}\n{{.Name | nope}}\n{{end}}';
  const err = t.throws(() => compileTemplate(bad)) as unknown;
  t.ok(err instanceof TemplateParseError && err instanceof TidewatchError);
  const e = err as TemplateParseError;
  t.equal(e.code, 'TW_ERR_TEMPLATE_PARSE');
  t.equal(e.message, 'template: :3: function "nope" not defined');
  t.same(e.position, { line: 3, column: 10 }, 'column 10 (from 0, as Go counts) is where nope starts');
  for (const [text, message] of [
    ['{{.Host', 'template: :1: unclosed action'],
    ['{{end}}', 'template: :1: unexpected {{end}}'],
    ['{{if .Host}}x', 'template: :1: unexpected EOF'],
    ['{{$x}}', 'template: :1: undefined variable "$x"'],
    ['{{/* no end', 'template: :1: unclosed comment'],
  ] as const) {
    t.throws(() => compileTemplate(text), { code: 'TW_ERR_TEMPLATE_PARSE', message }, text);
  }
});

t.test('an exec error is TW_ERR_TEMPLATE_EXEC with line, column and the action', async (t) => {
  const err = t.throws(() => compileTemplate('ok\n  {{.Report.Nope}}').render(data)) as TemplateExecError;
  t.equal(err.code, 'TW_ERR_TEMPLATE_EXEC');
  t.match(err.message, /^template: :2:11: executing "" at <\.Report\.Nope>: can't evaluate field Nope in type/);
  t.same(err.position, { line: 2, column: 11 });
  t.throws(() => compileTemplate('{{index .Entries 3}}').render(data), { code: 'TW_ERR_TEMPLATE_EXEC', message: /index out of range: 3/ });
  t.throws(() => compileTemplate('{{.Report.All}}').render(new NotificationData({ title: '', host: '' })), {
    code: 'TW_ERR_TEMPLATE_EXEC',
    message: /nil pointer evaluating/,
  });
});

t.test('endless {{template}} recursion stops with an exec error, not a crash', async (t) => {
  t.throws(() => renderTemplate('{{define "r"}}x{{template "r" .}}{{end}}{{template "r" .}}', data), {
    code: 'TW_ERR_TEMPLATE_EXEC',
    message: /executing "r" at <\{\{template "r" \.\}\}>: exceeded maximum template depth/,
  });
});

t.test('the data model: short ids, All, times and Watchtower JSON', async (t) => {
  t.equal(shortID(digest('f')), 'ffffffffffff');
  t.equal(shortID('abc'), 'abc');
  t.equal(shortID('other:0123456789abcdef'), 'other:0123456789ab');
  t.equal(new ImageID(digest('1')).ShortID(), '111111111111');
  t.same(
    data.Report?.All().map((c) => c.Name()),
    ['/db', '/web'],
    'All is unique and sorted by container id',
  );
  t.equal(renderTemplate('{{range .Entries}}{{.Time}}|{{.Time.Format "15:04:05.000 Jan 2"}}{{end}}', data), '2025-08-20 13:00:13.5 +0000 UTC|13:00:13.500 Aug 20');
  t.equal(GoTime.from('2025-08-20T06:00:13-07:00').String(), '2025-08-20 06:00:13 -0700 -0700');
  const json = JSON.parse(renderTemplate('json.v1', data)) as Record<string, unknown>;
  t.same(json, JSON.parse(JSON.stringify(data.MarshalJSON())), 'JSON.stringify of MarshalJSON is the json.v1 document');
  t.same(Object.keys(json), ['entries', 'host', 'report', 'title']);
  t.match(json, {
    entries: [{ level: 'info', message: 'Found new image', time: '2025-08-20T13:00:13.5Z', data: { image: 'nginx:latest' } }],
    report: { updated: [{ id: 'c20000000000', name: '/web', currentImageId: 'aaaaaaaaaaaa', latestImageId: 'bbbbbbbbbbbb' }], failed: [{ error: 'pull failed' }] },
  });
  const noData = new LogEntry({ level: 'error', message: 'x', time });
  t.equal(renderTemplate('{{range .}}{{.Data}}{{if .Data}}!{{end}}{{end}}', [noData]), 'map[]', 'an entry without data has an empty (nil) map');
});

// Watchtower is built with a current Go; these features came after Debian's Go 1.19 (the parity test's),
// so they are checked here against what Go's documentation defines.
t.test('newer Go: range over an int, else with, JSON short escapes', async (t) => {
  const root = new NotificationData({ title: 'T', host: '', report: new Report({ updated: [web] }) });
  t.equal(renderTemplate('{{range 3}}{{.}}{{end}}|{{range $i := 2}}{{$i}}{{end}}|{{range 0}}x{{else}}none{{end}}', root), '012|01|none');
  t.throws(() => renderTemplate('{{range $i, $e := 2}}{{end}}', root), {
    code: 'TW_ERR_TEMPLATE_EXEC',
    message: /can't use 2 to iterate over more than one variable/,
  });
  t.equal(renderTemplate('{{with .Host}}h{{else with .Title}}[{{.}}]{{else}}none{{end}}', root), '[T]');
  t.equal(renderTemplate('{{with .Host}}h{{else with .Host}}x{{else}}none{{end}}', root), 'none');
  t.equal(renderTemplate('{{ToJSON "a\\bb\\fc"}}', root), '"a\\bb\\fc"');
});
