// The corpus both Go's text/template and Tidewatch render in template-parity.test.ts: the built-in
// templates over several data sets, Watchtower's documented examples, and edge cases of the syntax.
import { builtinTemplates } from '../../../plugins/notify/template/index.js';
import { WATCHTOWER_DEFAULT } from '../../../plugins/notify/template/templates.js';
import { functionGrid, printfGrid, structureGrid } from './template-corpus-grids.js';

export interface CorpusContainer {
  ID: string;
  Name: string;
  ImageName: string;
  CurrentImageID: string;
  LatestImageID: string;
  State: string;
  Error?: string;
  /** Tidewatch's tag fields (docs/notifications.md#tag-updates). */
  CurrentTag?: string;
  LatestTag?: string;
  UpdateKind?: string;
  Note?: string;
}

export interface CorpusData {
  Title: string;
  Host: string;
  Entries: { Level: string; Message: string; Time: string; Data: Record<string, unknown> | null }[];
  Report: Partial<Record<'Scanned' | 'Updated' | 'Failed' | 'Skipped' | 'Stale' | 'Fresh' | 'Restarted', CorpusContainer[]>> | null;
}

export interface CorpusCase {
  Name: string;
  Template: string;
  /** data: report mode (notifications.Data); entries: legacy mode (the entries alone); raw: any JSON. */
  Root: 'data' | 'entries' | 'raw';
  Data: unknown;
}

const sha = (c: string) => `sha256:${c.repeat(64)}`;
const container = (id: string, name: string, state: string, extra: Partial<CorpusContainer> = {}): CorpusContainer => ({
  ID: `${id}${'0'.repeat(63)}`,
  Name: name,
  ImageName: `registry.local/${name.replace('/', '')}:latest`,
  CurrentImageID: sha('a'),
  LatestImageID: state === 'Updated' ? sha('b') : sha('a'),
  State: state,
  ...extra,
});

const web = container('3', '/web', 'Updated');
const db = container('1', '/db', 'Fresh');
const cache = container('2', '/cache', 'Failed', { Error: 'pull failed: <unauthorized> & denied' });
const worker = container('4', '/worker', 'Skipped', { Error: 'no image digest' });
const proxy = container('5', '/proxy', 'Restarted');
const odd = container('6', '/odd', 'Stale', { CurrentImageID: 'short', LatestImageID: 'other:0123456789abcdef0' });

const entries: CorpusData['Entries'] = [
  { Level: 'info', Message: 'Found new image', Time: '2025-08-20T13:00:13Z', Data: { image: 'nginx:latest', new_id: 'abcdef123456' } },
  { Level: 'info', Message: 'Stopping container', Time: '2025-08-20T13:00:14Z', Data: { container: '/web', id: '0123456789ab' } },
  { Level: 'info', Message: 'Started new container', Time: '2025-08-20T13:00:15.123456789Z', Data: { container: '/web' } },
  { Level: 'info', Message: 'Removing image', Time: '2025-08-20T13:00:16Z', Data: { image_name: 'nginx:old' } },
  { Level: 'info', Message: 'Successfully removed all excess Watchtower containers', Time: '2025-08-20T13:00:17Z', Data: { removed_instances: 1 } },
  { Level: 'info', Message: 'Successfully removed all excess Watchtower containers', Time: '2025-08-20T13:00:17Z', Data: { removed_instances: 3 } },
  { Level: 'info', Message: 'Image is within cooldown period - not eligible for update', Time: '2025-08-20T13:00:18Z', Data: { image: 'redis:7', cooldown: '72h0m0s', eligible_in: '3h', eligible_at: '2025-08-20T16:00:18Z' } },
  { Level: 'info', Message: 'Starting HTTP API server', Time: '2025-08-20T13:00:19Z', Data: { tls: true, host: '127.0.0.1', port: 8080 } },
  { Level: 'warning', Message: 'Could not do a head request', Time: '2025-08-20T06:00:13-07:00', Data: { error: 'timeout', retries: 2, ratio: 0.5 } },
  { Level: 'error', Message: 'Operation failed. Try again later.', Time: '2025-08-20T13:00:20Z', Data: null },
  { Level: 'info', Message: 'Session done', Time: '2025-08-20T13:00:21Z', Data: {} },
  { Level: 'debug', Message: 'Clock check', Time: '2024-02-29T18:35:21.000400+05:30', Data: { zone: 'IST' } },
  { Level: 'info', Message: 'Clock check', Time: '2025-03-09T00:05:09+00:00', Data: { zone: 'UTC' } },
];

const data = (report: CorpusData['Report'], list = entries): CorpusData => ({ Title: '[prod] Watchtower updates on box', Host: 'box', Entries: list, Report: report });

export const dataSets: Record<string, CorpusData> = {
  emptyReport: data({}, []),
  onlyUpdated: data({ Scanned: [web], Updated: [web] }, []),
  mixed: data({ Scanned: [db, cache, web, worker, proxy, odd], Updated: [web], Failed: [cache], Skipped: [worker], Fresh: [db], Restarted: [proxy], Stale: [odd, web] }),
  nilReportWithEntries: data(null),
  nilReportNoEntries: data(null, []),
};

// Tag updates (docs/notifications.md#tag-updates): data Watchtower never produces, so only Tidewatch's
// templates and templates using the tag fields render it.
const tagged = container('7', '/nginx', 'Updated', {
  ImageName: 'nginx:1.25.3-alpine',
  CurrentTag: '1.25.3-alpine',
  LatestTag: '1.25.4-alpine',
  UpdateKind: 'patch',
  Note: 'Compose file /srv/app/compose.yml (service web) still names nginx:1.25.3-alpine.',
});
const taggedStale = container('8', '/pg', 'Stale', { ImageName: 'postgres:16.4', CurrentTag: '16.4', LatestTag: '17.1', UpdateKind: 'major' });
const digestOnly = container('9', '/redis', 'Updated', { CurrentTag: 'latest', UpdateKind: 'digest' });
export const tagDataSets: Record<string, CorpusData> = {
  tagUpdates: data({ Scanned: [tagged, taggedStale, digestOnly, db], Updated: [tagged, digestOnly], Stale: [taggedStale], Fresh: [db] }, []),
};

const tagTemplate = `{{range .Report.All}}{{.Name}} {{.State}}{{with .LatestTag}} {{$.Host}}: {{.}}{{end}} [{{.CurrentTag}}|{{.LatestTag}}|{{.UpdateKind}}]{{with .Note}} note: {{.}}{{end}}
{{end}}`;

// Watchtower's documented examples (its templates page): the simple template and the report template.
const docsSimple = `{{- range $i, $e := . -}}
{{- if $i}}{{- println -}}{{- end -}}
{{- $msg := $e.Message -}}
{{- if eq $msg "Found new image" -}}
    Found new image: {{$e.Data.image}} ({{with $e.Data.new_id}}{{.}}{{else}}unknown{{end}})
{{- else if eq $msg "Stopping container" -}}
    Stopped stale container: {{$e.Data.container}} ({{with $e.Data.id}}{{.}}{{else}}unknown{{end}})
{{- else if eq $msg "Started new container" -}}
    Started new container: {{$e.Data.container}} ({{with $e.Data.new_id}}{{.}}{{else}}unknown{{end}})
{{- else if eq $msg "Removing image" -}}
    Removed stale image: {{with $e.Data.image_id}}{{.}}{{else}}unknown{{end}}
{{- else if eq $msg "Detected multiple Watchtower instances - initiating cleanup" -}}
    Detected {{$e.Data.count}} Watchtower instances - initiating cleanup
{{- else if $e.Data -}}
    {{$msg}} | {{range $k, $v := $e.Data -}}{{$k}}={{$v}} {{- end}}
{{- else -}}
    {{$msg}}
{{- end -}}
{{- end -}}`;

const docsReport = `{{- if .Report -}}
  {{- with .Report -}}
    {{len .Scanned}} Scanned, {{len .Updated}} Updated, {{len .Restarted}} Restarted, {{len .Failed}} Failed
    {{- if ( or .Updated .Restarted .Failed ) -}}
      {{- range .Updated}}
- {{.Name}} ({{.ImageName}}): {{.CurrentImageID.ShortID}} updated to {{.LatestImageID.ShortID}}
      {{- end -}}
      {{- range .Fresh}}
- {{.Name}} ({{.ImageName}}): {{.State}}
      {{- end -}}
      {{- range .Restarted}}
- {{.Name}} ({{.ImageName}}): {{.State}}
      {{- end -}}
      {{- range .Skipped}}
- {{.Name}} ({{.ImageName}}): {{.State}}: {{.Error}}
      {{- end -}}
      {{- range .Failed}}
- {{.Name}} ({{.ImageName}}): {{.State}}: {{.Error}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
{{- if .Entries -}}

Logs:
{{- end -}}
{{range .Entries -}}{{.Time.Format "2006-01-02T15:04:05Z07:00"}} [{{.Level}}] {{.Message}}{{"\\n"}}{{- end -}}
{{- end -}}`;

const raw = {
  a: 1, f: 1.5, s: 'hi', n: null, l: [1, 'x', null], m: { b: 2, a: 'z' }, e: [], em: {}, t: true,
  big: 1000000, small: 0.00001, neg: -3, words: 'hello wORLD don\'t 3rd x-ray foo_bar ǆemal', html: '<b>&"</b>',
  nested: { list: [{ k: 'v1' }, { k: 'v2' }] }, zero: 0, empty: '',
  ff1: 1234567.5, ff2: 0.1 + 0.2, ff3: 1e-7, ff4: 123456.789, ff5: -2.5e-5, huge: 1e19, bigint: 9007199254740991,
};

const edge: [string, string][] = [
  ['range-else-empty', '{{range .e}}x{{else}}empty{{end}}'],
  ['range-else-full', '{{range .l}}[{{.}}]{{else}}empty{{end}}'],
  ['range-map-sorted', '{{range $k, $v := .m}}{{$k}}={{$v}};{{end}}'],
  ['range-index-elem', '{{range $i, $e := .l}}{{$i}}:{{$e}} {{end}}'],
  ['range-missing', '{{range .nope}}x{{else}}none{{end}}'],
  ['range-break-continue', '{{range $i, $e := .l}}{{if eq $i 1}}{{continue}}{{end}}{{if eq $i 2}}{{break}}{{end}}{{$e}}{{end}}'],
  ['with-else', '{{with .n}}x{{else}}nil{{end}}|{{with .s}}{{.}}!{{end}}|{{with .zero}}z{{else}}zero{{end}}'],
  ['trim-newlines', 'a  \n  {{- .s -}}  \n\t b\n{{- /* c */ -}}\n c {{/* keep */}} d'],
  ['trim-one-side', 'x\n{{- "y"}}\nz\n{{"w" -}}\n v'],
  ['len', '{{len .s}} {{len .l}} {{len .m}} {{len "héllo"}} {{len .e}}'],
  ['printf-verbs', '{{printf "%s|%d|%v|%q|%t|%x|%X|%5s|%-5s|%05d|%02d|%.2f|%e|%g|%8.3f|%+d|%c|%%" .s .a .l .s .t 255 "hi" "ab" "cd" 42 7 .f .f .big 3.14159 5 65}}'],
  ['printf-bad', '{{printf "%d %s" "x"}}|{{printf "%d" 1 .a}}|{{printf "%s" .n}}|{{printf "%v" .missing}}'],
  ['print-println', '{{print 1 2 "a" "b" 3 .n .l}}|{{println .s .a}}|{{print}}'],
  ['missing-key', '{{.nope}}|{{.nope.deeper}}|{{index .m "q"}}|{{print .nope}}|{{.n}}'],
  ['missing-field-struct', '{{.m.b}}'],
  ['nested-if', '{{if .zero}}a{{else if .empty}}b{{else if .s}}c{{if .t}}d{{else}}e{{end}}{{else}}f{{end}}'],
  ['variables', '{{$x := 1}}{{$y := .s}}{{if true}}{{$x = 2}}{{$z := 3}}{{$z}}{{end}}{{$x}}{{$y}}{{$.s}}{{range .l}}{{$.a}}{{end}}'],
  ['index', '{{index .l 1}}|{{index .m "a"}}|{{index .nested.list 1 "k"}}|{{index .s 0}}'],
  ['comparisons', '{{eq .a 1}} {{eq .s "x" "hi"}} {{ne .a 2}} {{lt .a 2}} {{le .s "a"}} {{gt .f 1.0}} {{ge .neg -3}} {{eq .n nil}} {{eq .nope 1}}'],
  ['and-or-values', '{{and 1 "x" .l}}|{{and 1 0 2}}|{{or 0 "" .s}}|{{or 0 ""}}|{{not .e}}|{{not .m}}|{{and .nope 1}}'],
  ['pipelines-parens', '{{.s | printf "%s-%s" "x"}}|{{(len .l) | printf "%03d"}}|{{printf "%d" (len (index .nested "list"))}}'],
  ['numbers', '{{.f}}|{{.big}}|{{.small}}|{{1.0}}|{{1e3}}|{{0x10}}|{{\'a\'}}|{{-5}}|{{.neg}}'],
  ['print-values', '{{.}}'],
  ['funcs-watchtower', '{{ToUpper .s}}|{{ToLower "ÀB"}}|{{Title .words}}|{{ToUpper "straße"}}'],
  ['funcs-json', '{{ToJSON .}}|{{ToJSON .html}}|{{ToJSON .l}}'],
  ['escapers', '{{html .html}}|{{js "a\'b<\\""}}|{{urlquery "a b&c"}}|{{slice .s 1}}|{{slice .l 1 2}}'],
  ['renders-empty', '{{if .nope}}never{{end}}{{- /* nothing */ -}}'],
  ['define-template', '{{define "row"}}<{{.}}>{{end}}{{range .l}}{{template "row" .}}{{end}}'],
  ['printf-more', '{{printf "%6.2f|%-8v|% d|%x|%c|%U|%o|%b|%T|%T|%T|%10.3s|%*d|%-*d|%.0f|%g|%e|%08.3f|%+.2e|%x|%5t|%05s" 3.14159 "ab" 5 "hi" 65 65 8 5 .a .s .l "abcdef" 4 7 3 8 2.5 .small 0.0 -3.14159 1234.5 -255 true "ab"}}'],
  ['printf-rounding', '{{printf "%.2f %.0f %.0f %.2f %.1e %.1f %.0f %.3e" 0.125 1.5 0.5 2.675 1.25 0.05 -2.5 12345.5}}'],
  ['printf-composite', '{{printf "%v|%d|%s|%q|%x" .m .l .l .l .m}}'],
  ['floats', '{{.huge}} {{.bigint}} {{ToJSON .huge}} {{.ff1}} {{.ff2}} {{.ff3}} {{.ff4}} {{.ff5}} {{printf "%v %g %.3g %.10g" .ff2 .ff3 .ff2 .ff4}}'],
  ['strings-escapes', '{{"a\\tb\\u00e9\\x41\\n"}}|{{`raw\\n{{x}}`}}|{{printf "%q" "tab\\there\\u00e9\\x01"}}'],
  ['comments', 'a{{/* one */}}b{{- /* two */}} c {{/* three */ -}} d{{/*\nmulti\nline\n*/}}e'],
  ['trim-numbers', '{{- 3}}|{{3 -}} |{{-3}}|{{ -3 }}'],
  ['nested-range-root', '{{range $i, $x := .l}}{{range $j, $y := $.l}}{{$i}}{{$j}} {{end}}{{end}}'],
  ['with-declare', '{{with $x := .s}}{{$x}}{{.}}{{end}}|{{if $y := .zero}}y{{else}}no{{$y}}{{end}}'],
  ['logic-in-if', '{{if and .s (not .e)}}A{{end}}{{if or .zero .empty}}B{{else}}C{{end}}{{if not (or .zero .t)}}D{{end}}'],
  ['chain-and-parens', '{{(index .nested.list 0).k}}|{{$e := index .nested.list 1}}{{$e.k}}|{{len (slice .l 1)}}'],
  ['range-nested-map', '{{range .nested.list}}{{range $k, $v := .}}{{$k}}:{{$v}} {{end}}{{end}}'],
  ['title-cases', '{{Title "hello world"}}|{{Title "HELLO"}}|{{Title "o\'neil mcdonald"}}|{{Title "a.b.c a..b"}}|{{Title "émile zola"}}|{{Title "x1y 1st_place"}}|{{Title ""}}'],
  ['title-unicode', '{{Title "ΣΊΣΥΦΟΣ.l\'été ﬁne ß-3rd ŉ ǆ ΣΑΣ. x_y.z a:b"}}'],
  ['upper-lower', '{{ToUpper "héllo ß"}}|{{ToLower "ÉCOLE İ"}}|{{"abc" | ToUpper}}'],
  ['range-map-values', '{{range .m}}<{{.}}>{{end}}|{{range $k, $v := .em}}x{{else}}none{{end}}'],
  ['trim-edges', '{{- .s}}\n\n{{.s -}}\n\n'],
  ['newlines-in-action', '{{ printf "%s-%d"\n  .s\n  .a }}|{{\n.s\n}}'],
  ['root-and-dot', '{{with .l}}{{index . 0}}{{$}}{{end}}'],
  ['missing-logic', '{{if not .nope}}A{{end}}{{eq .s .nope}}{{print nil}}{{with .nope}}x{{else}}B{{end}}'],
  ['unicode', 'héllo {{len "日本"}} {{ToUpper "ça"}} {{printf "%5s|%-4s|%q" "日本" "é" "日本"}} {{slice "héllo" 0 1}}'],
  ['json-strings', '{{ToJSON "é \u2028 <tag> & \\"q\\" \\\\ \\t\\u0001"}}|{{ToJSON .ff2}}|{{ToJSON .ff3}}|{{ToJSON .ff5}}|{{ToJSON 1.0}}|{{ToJSON nil}}'],
  ['err-template-undefined', '{{template "x" .}}'],
  ['err-in-define', '{{define "d"}}\n  {{.s.x}}{{end}}{{template "d" .}}'],
  ['block', '{{block "b" .s}}<{{.}}{{$}}>{{end}}|{{template "b" "x"}}'],
  ['define-root', '{{define "t"}}[{{.}}|{{$}}]{{end}}{{template "t" .s}}{{template "t"}}'],
  ['escapers-non-string', '{{html 1 "<"}}|{{urlquery "é/?"}}|{{js "\u2028x"}}|{{slice .s 1 2}}|{{slice .l}}'],
  ['printf-ints', '{{printf "%-5d|%5d|%+05d|%x|%#x|%o|%08b|%3c|%-4q|%v" -42 -42 42 3054 255 64 5 97 97 -0}}'],
  ['err-call-string', '{{call .s 1}}'],
  ['err-call-missing', '{{call .nope}}'],
  ['err-len-missing', '{{len .nope}}'],
  ['err-lt-missing', '{{lt .nope 1}}'],
  ['err-field-of-int', '{{.a.b.c}}'],
  ['err-nil-pointer', '{{.n.x}}'],
  ['err-field-of-string', '{{.s.x}}'],
  ['err-len', '{{len .a}}'],
  ['err-compare', '{{lt .a .f}}'],
  ['err-index-range', '{{index .l 5}}'],
  ['err-range-float', '{{range .f}}x{{end}}'],
  ['err-toupper-missing', '{{ToUpper .nope}}'],
  ['err-wrong-args', '{{len}}'],
  ['err-not-a-method', '{{.m.a 1}}'],
  ['err-non-function', '{{.s 1}}'],
  ['parse-unclosed-action', 'a {{ .s '],
  ['parse-unexpected-end', '{{end}}'],
  ['parse-undefined-function', '{{nope 1}}'],
  ['parse-undefined-variable', '{{$x}}'],
  ['parse-missing-value', '{{if}}x{{end}}'],
  ['parse-unterminated-string', '{{"abc}}'],
  ['parse-unclosed-if', '{{if .s}}x'],
  ['parse-else-top', 'a{{else}}b'],
  ['parse-bad-number', '{{3x}}'],
  ['parse-unclosed-comment', '{{/* never'],
  ['parse-comment-not-closed-right', '{{/* c */ .s}}'],
  ['parse-non-executable', '{{.s | "x"}}'],
  ['parse-empty-pipe', '{{.s | }}'],
  ['parse-comment-after-space', '{{ /* c */ }}'],
  ['parse-dot-after-term', '{{"x".y}}'],
  ['parse-unexpected-rparen', '{{.s)}}'],
  ['parse-range-two-vars-if', '{{if $a, $b := .l}}{{end}}'],
  ['parse-break-outside', '{{break}}'],
  ['parse-missing-end-define', '{{define "x"}}a'],
  ['err-assign-undeclared', '{{$x = 1}}'],
  ['parse-range-bad-init', '{{range $a, 1}}{{end}}'],
  ['parse-unexpected-char', '{{.s ; .a}}'],
  ['parse-unclosed-paren', '{{(len .s}}'],
];

const reportEdge: [string, string][] = [
  ['report-fields', '{{range .Report.All}}{{.ID.ShortID}} {{.Name}} {{.State}} {{.CurrentImageID}} {{.CurrentImageID.ShortID}} {{.LatestImageID.ShortID}} [{{.Error}}] {{with .Error}}E{{end}}\n{{end}}'],
  ['report-error-print', '{{range .Report.Failed}}{{.}}{{end}}|{{if .Report}}yes{{else}}no{{end}}|{{.Title}}|{{.Host}}'],
  ['entry-fields', '{{range .Entries}}{{.Level}} {{.Time}} {{.Time.Format "Jan _2 15:04:05.000 PM MST"}} {{.Message}} {{.Data}}\n{{end}}'],
  ['entry-data', '{{range .Entries}}{{with .Data}}{{range $k, $v := .}}{{$k}}={{$v}};{{end}}{{else}}-{{end}}\n{{end}}'],
  ['rfc1123', '{{range .Entries}}{{with .Data}}{{with .eligible_at}}{{RFC1123 .}} {{RFC1123 "nope"}}{{end}}{{end}}{{end}}'],
  ['report-logic', '{{range $i, $c := .Report.All}}{{if $i}}, {{end}}{{if eq $c.State "Updated" "Failed"}}*{{end}}{{ToUpper $c.Name}}{{end}}|{{.Report.All | len}}|{{printf "%s %v %q" .Title .Host .Title}}'],
  ['entry-methods', '{{range .Entries}}{{.Time.Unix}} {{.Time.UTC}} {{.Time.Format "Monday January 2 2006 03:04:05.999 pm Z07:00 -07 002"}}\n{{end}}{{with .Entries}}{{$e := index . 0}}{{$e.Data.image}}{{end}}'],
  ['report-compare-ids', '{{range .Report.All}}{{if eq .CurrentImageID .LatestImageID}}same{{else}}diff{{end}} {{eq .State "Updated" "Failed"}} {{printf "%s|%v|%.4s" .CurrentImageID.ShortID .ID.ShortID .Name}} {{.ImageName | printf "%q"}}\n{{end}}'],
  ['report-method-pipe', '{{range .Entries}}{{"2006/01/02" | .Time.Format}} {{Title .Level}} {{.Message | ToLower | printf "%.10s"}}\n{{end}}'],
  ['err-method-args', '{{with .Entries}}{{range .}}{{.Time.Format}}{{end}}{{else}}{{.Time.Format}}{{end}}'],
  ['err-toupper-imageid', '{{range .Report.Updated}}{{ToUpper .CurrentImageID}}{{end}}'],
  ['time-layouts', '{{range .Entries}}{{.Time.Format "002 __2 _2 Jan January Mon Monday 06 1 01 3 03 15 4 04 5 05 PM pm .000 .999 ,000 MST -07 -0700 -07:00 Z07 Z0700 Z07:00"}}|{{.Time}}\n{{end}}'],
  ['count-summary', '{{with .Report}}{{len .Scanned}}/{{len .Updated}}/{{len .Failed}}{{else}}no report{{end}}'],
];

function build(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const [name, set] of Object.entries(dataSets)) {
    for (const tpl of ['default', 'porcelain.v1.summary-no-log', 'json.v1', 'porcelain.json']) {
      cases.push({ Name: `${tpl}/${name}`, Template: builtinTemplates[tpl] as string, Root: 'data', Data: set });
    }
    cases.push({ Name: `default-legacy/${name}`, Template: builtinTemplates['default-legacy'] as string, Root: 'entries', Data: set });
    cases.push({ Name: `json.v1-legacy/${name}`, Template: builtinTemplates['json.v1'] as string, Root: 'entries', Data: set });
    cases.push({ Name: `docs-simple/${name}`, Template: docsSimple, Root: 'entries', Data: set });
    cases.push({ Name: `docs-report/${name}`, Template: docsReport, Root: 'data', Data: set });
    for (const [n, t] of reportEdge) cases.push({ Name: `${n}/${name}`, Template: t, Root: 'data', Data: set });
    // Watchtower's own default, verbatim, over Watchtower's data: the test compares Tidewatch's default with it.
    cases.push({ Name: `watchtower-default/${name}`, Template: WATCHTOWER_DEFAULT, Root: 'data', Data: set });
    if (set.Report === null) {
      // A nil report prints as Go prints a nil interface; a real one would print pointers.
      const t = '{{.Report}}|{{printf "%v %T" .Report .Report}}|{{eq .Report nil}}|{{ToJSON .Report}}|{{ToPorcelainJSON .Report}}';
      cases.push({ Name: `report-nil/${name}`, Template: t, Root: 'data', Data: set });
      cases.push({ Name: `err-report-nil-len/${name}`, Template: '{{len .Report}}', Root: 'data', Data: set });
    }
  }
  for (const [name, set] of Object.entries(tagDataSets)) {
    for (const tpl of ['default', 'porcelain.v1.summary-no-log', 'json.v1', 'porcelain.json']) {
      cases.push({ Name: `${tpl}/${name}`, Template: builtinTemplates[tpl] as string, Root: 'data', Data: set });
    }
    cases.push({ Name: `tag-fields/${name}`, Template: tagTemplate, Root: 'data', Data: set });
    cases.push({ Name: `docs-report/${name}`, Template: docsReport, Root: 'data', Data: set });
  }
  for (const [n, t] of [...edge, ...printfGrid(), ...functionGrid(), ...structureGrid()]) cases.push({ Name: n, Template: t, Root: 'raw', Data: raw });
  return cases;
}

export const corpus: CorpusCase[] = build();
