// Every in-page anchor and every page a page points at exists: markdown links (`[x](#a)`, `[x](page.md#a)`)
// and the plain `docs/page.md#anchor` references the pages use, in README.md, CONTRIBUTING.md, CHANGELOG.md
// and docs/*.md. Anchors are GitHub's: the heading lower-cased, punctuation dropped, spaces as hyphens,
// `-1`, `-2`… for repeats; an explicit `<a id="…">` counts too.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/service.js';

export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

const pages = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter((p) =>
  existsSync(join(REPO_ROOT, p)),
);

function withoutCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, '');
}

t.test('the slug rule is GitHub\'s', async (t) => {
  t.equal(slug('8. Container labels (`tidewatch.` + key; Watchtower\'s prefix is an alias)'.replace(/`/g, '')), '8-container-labels-tidewatch--key-watchtowers-prefix-is-an-alias');
  t.equal(slug('V8 settings'), 'v8-settings');
  t.equal(slug('When an engine is down'), 'when-an-engine-is-down');
});

t.test('every link and docs/…#anchor reference resolves', async (t) => {
  const cache = new Map<string, Set<string>>();
  const anchors = (page: string) => {
    let found = cache.get(page);
    if (!found) cache.set(page, (found = anchorsOf(readFileSync(join(REPO_ROOT, page), 'utf8'))));
    return found;
  };
  let checked = 0;
  for (const page of pages) {
    const text = withoutCode(readFileSync(join(REPO_ROOT, page), 'utf8'));
    const targets: { file: string; anchor: string | undefined; what: string }[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/.test(href)) continue;
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const file = path === '' ? page : normalize(join(dirname(page), path));
      targets.push({ file, anchor, what: href });
    }
    for (const m of text.matchAll(/(?<![\w/.-])((?:docs\/)?[\w-]+\.md)#([\w-]+)/g)) {
      const file = m[1]!.includes('/') || m[1] === 'README.md' || m[1] === 'CONTRIBUTING.md' || m[1] === 'CHANGELOG.md' ? m[1]! : `docs/${m[1]}`;
      targets.push({ file, anchor: m[2], what: m[0] });
    }
    for (const { file, anchor, what } of targets) {
      checked++;
      if (!existsSync(join(REPO_ROOT, file))) {
        t.fail(`${page}: ${what}: no ${file}`);
        continue;
      }
      if (anchor === undefined || !file.endsWith('.md')) continue;
      t.ok(anchors(file).has(anchor), `${page}: ${what}`);
    }
  }
  t.ok(checked > 100, `${checked} references checked`);
});
