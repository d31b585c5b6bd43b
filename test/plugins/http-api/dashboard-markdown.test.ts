// The dashboard's Markdown renderer (plugins/http-api/dashboard/assets/markdown.js), run in Node as the browser runs
// it: emphasis never lands inside a link's URL, and a note's raw HTML stays text.
import t from 'tap';

type Render = (text: string) => string;
const asset = new URL('../../../plugins/http-api/dashboard/assets/markdown.js', import.meta.url).href;

t.test('emphasis inside link text, never inside the URL', async (t) => {
  const { renderMarkdown } = (await import(asset)) as { renderMarkdown: Render };
  const html = renderMarkdown('see [**the** _issue_](https://example.com/a_b_c/**x**/_y_) and _em_ **b**');
  t.match(html, '<a href="https://example.com/a_b_c/**x**/_y_" ', 'the URL kept as written');
  t.match(html, '><strong>the</strong> <em>issue</em></a>', 'the link text emphasised');
  t.match(html, 'and <em>em</em> <strong>b</strong>', 'emphasis outside links as before');
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? '');
  t.notOk(hrefs.some((h) => /<|>/.test(h)), 'no tag inside any href');
  t.notMatch(renderMarkdown('<img src=x onerror=alert(1)>'), '<img', 'raw HTML stays text');
  t.notMatch(renderMarkdown('[x](javascript:alert(1))'), '<a', 'no link for a javascript: URL');
});
