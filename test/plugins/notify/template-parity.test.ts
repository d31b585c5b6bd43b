// Renders the template corpus with Go's own text/template (a tiny program built from go-template/main.go
// with Debian's golang-go) and with Tidewatch, and asserts identical output (or both failing) for every
// case (docs/notifications.md, "Templates"). With CI=true a missing Go toolchain fails the test.
import t from 'tap';
import {
  ContainerReport,
  LogEntry,
  NotificationData,
  Report,
  builtinTemplates,
  compileTemplate,
  renderValue,
  type ContainerState,
} from '../../../plugins/notify/template/index.js';
import { haveGo, renderWithGo } from '../../helpers/go-template.js';
import { corpus, type CorpusContainer, type CorpusData } from './template-corpus.js';

/**
 * Go names the static type of a value in some messages (`main.Report`, `interface {}`): the fixture's
 * package is not Watchtower's and JavaScript has no static types, so type names are left out of the
 * comparison; everything else (position, context, reason) must match.
 */
const typeless = (message: string | undefined) =>
  message?.replace(/(in type|evaluating|expected|got|with type) ((?:\[\]|map\[string\])?interface \{\}|[\w*[\]{}]+)(\.\w+)*/g, '$1 <type>');

const toContainer = (c: CorpusContainer) =>
  new ContainerReport({
    id: c.ID,
    name: c.Name,
    imageName: c.ImageName,
    currentImageId: c.CurrentImageID,
    latestImageId: c.LatestImageID,
    state: c.State as ContainerState,
    error: c.Error ?? '',
    ...(c.CurrentTag ? { currentTag: c.CurrentTag } : {}),
    ...(c.LatestTag ? { latestTag: c.LatestTag } : {}),
    ...(c.UpdateKind ? { updateKind: c.UpdateKind } : {}),
    ...(c.Note ? { note: c.Note } : {}),
  });

function toData(d: CorpusData): NotificationData {
  const r = d.Report;
  return new NotificationData({
    title: d.Title,
    host: d.Host,
    entries: d.Entries.map((e) => new LogEntry({ level: e.Level, message: e.Message, time: e.Time, data: e.Data })),
    report: r
      ? new Report({
          scanned: (r.Scanned ?? []).map(toContainer),
          updated: (r.Updated ?? []).map(toContainer),
          failed: (r.Failed ?? []).map(toContainer),
          skipped: (r.Skipped ?? []).map(toContainer),
          stale: (r.Stale ?? []).map(toContainer),
          fresh: (r.Fresh ?? []).map(toContainer),
          restarted: (r.Restarted ?? []).map(toContainer),
        })
      : null,
  });
}

function renderTidewatch(c: (typeof corpus)[number]): { output?: string; error?: string } {
  try {
    if (c.Root === 'raw') return { output: renderValue(c.Template, c.Data) };
    const data = toData(c.Data as CorpusData);
    return { output: compileTemplate(c.Template).render(c.Root === 'entries' ? data.Entries : data) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

t.test('Tidewatch renders the corpus exactly as Go text/template does', (t) => {
  if (!haveGo()) {
    if (process.env.CI === 'true') {
      t.fail('go or x/text is not installed (Debian golang-go, golang-golang-x-text-dev); CI=true: the parity test must not be skipped');
      t.end();
      return;
    }
    t.plan(0, 'go or x/text is not installed: apt-get install golang-go golang-golang-x-text-dev to run the parity test');
    return;
  }
  const goResults = renderWithGo(corpus);
  t.equal(goResults.length, corpus.length, 'Go rendered every case');
  t.ok(corpus.length >= 80, `the corpus has ${corpus.length} cases`);
  let outputs = 0;
  let errors = 0;
  corpus.forEach((c, i) => {
    const go = goResults[i] as { name: string; output?: string; error?: string };
    const ours = renderTidewatch(c);
    if (go.error !== undefined) {
      errors++;
      // The same message as Go's, position included: `template: :1:4: executing "" at <.n.x>: …`.
      t.equal(typeless(ours.error), typeless(go.error), `${c.Name}: fails like Go`);
    } else {
      outputs++;
      t.equal(ours.output, go.output, ours.error === undefined ? c.Name : `${c.Name}: ${ours.error}`);
    }
  });
  t.ok(outputs > 60 && errors >= 5, `${outputs} outputs and ${errors} errors compared`);

  // Watchtower's templates render exactly as before: on every data set Watchtower could produce, Tidewatch's
  // `default` (with the tag fields) prints what Go prints for Watchtower's verbatim `default`.
  const goByName = new Map(goResults.map((r) => [r.name, r]));
  let compared = 0;
  for (const c of corpus.filter((c) => c.Name.startsWith('watchtower-default/'))) {
    const set = c.Name.slice('watchtower-default/'.length);
    const watchtower = goByName.get(c.Name)?.output;
    t.type(watchtower, 'string', `${c.Name}: Go rendered Watchtower's default`);
    t.equal(renderTidewatch({ ...c, Template: builtinTemplates.default as string }).output, watchtower, `default/${set} is Watchtower's text`);
    compared++;
  }
  t.ok(compared >= 5, `${compared} data sets compared with Watchtower's verbatim default`);
  // And a tag update shows its version change and note (Go agrees, above).
  t.match(goByName.get('default/tagUpdates')?.output, /- \/nginx \(nginx:1\.25\.3-alpine\): a{12} updated to b{12}: 1\.25\.3-alpine → 1\.25\.4-alpine \(patch\)\n  Compose file/);
  t.end();
});
