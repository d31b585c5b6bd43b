// What a row says about versions (docs/dashboard.md#versions): versions first, digests on demand, the links
// and the release notes an update brings.
import { esc, short } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { state } from './state.js';

// A version when one is known; its digest on demand (folded), or the digest itself when there is no
// version to show.
export function versionCell(label, version, digest) {
  const v = version ? `<span class="version">${esc(version)}</span>` : '';
  let d = digest
    ? `<span class="digest" title="${esc(digest)}">${esc(short(digest))}</span><button type="button" class="copy" data-copy="${esc(digest)}" aria-label="Copy ${esc(digest)}">copy</button>`
    : '';
  if (v && d) d = ` <details class="digests"><summary>digest</summary>${d}</details>`;
  return `<td data-label="${label}">${v}${d}</td>`;
}

const VERSION_POLICIES = new Set(['patch', 'minor', 'major']);

/**
 * The versions of a row: from this tab's check record, else from /v1/containers/details (the last check
 * made by anyone). A tag update shows current tag → latest tag; otherwise the image's version label (or the
 * tag of a container on a version policy) is current, and latest is the same while up to date, unknown
 * (digest only) while a digest update waits. A tag followed by digest (`latest`, `7`) is no version.
 */
export function versionsOf(r, d) {
  const src = r ?? d;
  if (!src) return { current: '', latest: '', kind: '', note: '' };
  const stale = r ? r.update_available : d.stale;
  const tag = VERSION_POLICIES.has(src.tag_policy) ? src.current_tag : '';
  const current = src.latest_tag ? src.current_tag : (src.current_image_version || d?.current_image_version || tag || '');
  // A candidate's own version (docs/versions.md) comes with the last check, through /details.
  const latest = src.latest_tag || (stale ? (d?.stale ? d.latest_image_version ?? '' : '') : current);
  return { current: current ?? '', latest, kind: stale ? (src.update_kind ?? '') : '', note: src.note ?? '' };
}

export function links(record, d) {
  if (!record && !d) return '';
  const out = [];
  const changelog = record?.changelog || (record?.update_available !== false && d?.stale ? d.changelog : '');
  for (const [label, url] of [['changes', changelog], ['source', record?.oci_source], ['docs', record?.documentation]]) {
    if (url && /^https?:\/\//.test(url)) out.push(`<a href="${esc(url)}" rel="noreferrer" target="_blank">${label}</a>`);
  }
  return out.join(' ');
}

// Plugins' own findings (docs/plugins.md#findings): each by its key and its one line, from this tab's check
// record, else from /v1/containers/details. The dashboard knows none of them; it shows whatever is there.
export function findings(record, d) {
  const src = record?.findings ?? (record ? undefined : d?.findings);
  if (!src) return '';
  return Object.entries(src)
    .map(([key, line]) => `<p class="finding" data-finding="${esc(key)}"><span class="finding-key">${esc(key)}</span> ${esc(line)}</p>`)
    .join('');
}

// The releases an update brings (docs/dashboard.md#release-notes), folded; rendered by the safe renderer.
export function releaseNotes(name, d, stale) {
  const notes = stale && d?.stale ? d.release_notes : undefined;
  if (!notes?.length) return '';
  const entries = notes
    .map((n) => `<article class="release"><h3>${/^https?:\/\//i.test(n.url) ? `<a href="${esc(n.url)}" rel="noopener noreferrer nofollow" target="_blank">${esc(n.title || n.version)}</a>` : esc(n.title || n.version)}</h3><div class="markdown">${renderMarkdown(n.body)}</div></article>`)
    .join('');
  const open = state.notesOpen.has(name) ? ' open' : '';
  return `<details class="release-notes" data-notes="${esc(name)}"${open}><summary>release notes (${notes.length})</summary>${entries}</details>`;
}
