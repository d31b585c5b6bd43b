// A small Markdown renderer for release notes (docs/dashboard.md#release-notes). Release notes come from a
// code host and are untrusted: every character is escaped first, so raw HTML shows as text and nothing in
// a note can become an element of its own; only the Markdown below makes elements, and a link is made only
// for an http(s) URL (a `javascript:` or `data:` link stays text). The page's Content-Security-Policy
// forbids inline scripts as a second line of defence.
const esc = (value) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** A link for an http(s) URL only; anything else is its text. `text` and `url` are escaped already. */
function link(text, url) {
  return /^https?:\/\//i.test(url) ? `<a href="${url}" rel="noopener noreferrer nofollow" target="_blank">${text}</a>` : text;
}

/** Bold and italics of escaped text that holds no link. */
function emphasis(text) {
  return text
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*)[*_](?=$|[\s.,;:!?)])/g, '$1<em>$2</em>');
}

/**
 * Inline Markdown of one escaped line: code spans first (nothing inside them is Markdown), then links, then
 * emphasis in the text between links and in a link's own text, never in its URL (an `_` or `**` in a URL
 * would otherwise put tags inside the `href` and break the link).
 */
function inline(line) {
  return esc(line)
    .split(/(`[^`]+`)/)
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${part.slice(1, -1)}</code>`;
      return part
        .split(/(!?\[[^\]]*\]\([^)\s]+\))/)
        .map((piece, j) => {
          if (j % 2 === 0) return emphasis(piece);
          const [, text, url] = /^!?\[([^\]]*)\]\(([^)\s]+)\)$/.exec(piece);
          return link(emphasis(text), url);
        })
        .join('');
    })
    .join('');
}

/** Markdown text → HTML: headings, lists, fenced code, paragraphs; everything else as text. */
export function renderMarkdown(text) {
  const out = [];
  let list = null;
  let paragraph = [];
  let fence = null;
  const flush = () => {
    if (paragraph.length) out.push(`<p>${paragraph.map(inline).join('<br>')}</p>`);
    paragraph = [];
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (const raw of String(text ?? '').split(/\r?\n/)) {
    if (fence !== null) {
      if (/^\s*```/.test(raw)) {
        out.push(`<pre><code>${esc(fence.join('\n'))}</code></pre>`);
        fence = null;
      } else fence.push(raw);
      continue;
    }
    if (/^\s*```/.test(raw)) {
      flush();
      fence = [];
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(raw);
    if (heading) {
      flush();
      // Headings inside a note sit below the note's own title.
      const level = Math.min(6, heading[1].length + 3);
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (item) {
      if (paragraph.length) flush();
      const kind = item[1] ? 'ul' : 'ol';
      if (list !== kind) {
        if (list) out.push(`</${list}>`);
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline(item[3])}</li>`);
    } else if (raw.trim() === '') flush();
    else {
      if (list) flush();
      paragraph.push(raw.trim());
    }
  }
  if (fence !== null) out.push(`<pre><code>${esc(fence.join('\n'))}</code></pre>`);
  flush();
  return out.join('');
}
