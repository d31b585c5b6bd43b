// A container's timeline (docs/dashboard.md#what-it-shows): its audit trail, newest first, in words: the versions
// (the image's version, else its tag) a change moved between, digests folded behind a toggle, and the
// outcome as a person says it ("rolled back", not `rolled_back`).
import { api, errorText } from './api.js';
import { $, esc, short, tagOf } from './dom.js';
import { state } from './state.js';

/** The audit trail of one container, newest first (docs/state.md#the-audit-trail). */
export async function loadTimeline(name) {
  state.timeline = name;
  $('timeline-title').textContent = `Timeline of ${name}`;
  const res = await api('GET', `/v1/audit?container=${encodeURIComponent(name)}&limit=50`);
  const list = $('timeline');
  if (res.status !== 200) {
    list.innerHTML = `<li>${esc(errorText(res))}</li>`;
    return;
  }
  list.innerHTML =
    res.body.entries
      .slice()
      .reverse()
      .map((e) => {
        const moved = e.from ? `${versionOf(e.from)}${e.to ? ` → ${versionOf(e.to)}` : ''}` : '';
        const digests = [e.from, e.to].filter(Boolean).map((i) => short(i.digest) || short(i.image_id)).filter(Boolean);
        const folded = digests.length ? ` <details class="digests"><summary>digest</summary><span class="digest">${esc(digests.join(' → '))}</span></details>` : '';
        return `<li class="audit-${esc(e.action)} audit-${esc(e.outcome)}"><span class="type">${esc(ACTIONS[e.action] ?? e.action)}</span> ${esc(outcomeWords(e.outcome))}${moved ? ` <span class="change">${moved}</span>` : ''}${folded} <small>${esc(new Date(e.time).toLocaleString())} · ${esc(e.trigger)}</small>${e.error ? ` <span class="err">${esc(e.error)}</span>` : ''}</li>`;
      })
      .join('') || '<li>No changes recorded yet.</li>';
}

const ACTIONS = { update: 'Update', rollback: 'Rollback', restart: 'Restart', repair: 'Repair', approve: 'Approval', reject: 'Rejection', defer: 'Deferral' };

/** `rolled_back` → `rolled back`, `not_retried` → `not retried`. */
function outcomeWords(outcome) {
  return String(outcome ?? '').replace(/_/g, ' ');
}

/** The version an audit image names: its version when recorded, else its tag, else (nothing better) its short digest. */
function versionOf(image) {
  const text = image.version || tagOf(image.image) || short(image.digest) || short(image.image_id);
  return `<span class="version" title="${esc(image.image)}">${esc(text)}</span>`;
}
