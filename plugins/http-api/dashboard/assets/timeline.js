// A container's timeline (docs/dashboard.md#what-it-shows): its audit trail, newest first, in words: the versions
// (the image's version, else its tag) a change moved between, digests folded behind a toggle, and the
// outcome as a person says it ("rolled back", not `rolled_back`). It reads 50 changes at a time: the API pages
// the audit trail (docs/http-api.md#pages), and "Older changes" follows the page's `next`.
import { api, errorText } from './api.js';
import { $, esc, short, tagOf } from './dom.js';
import { state } from './state.js';

const PAGE = 50;

/** The audit trail of one container, newest first (docs/state.md#the-audit-trail). */
export async function loadTimeline(name) {
  state.timeline = name;
  $('timeline-title').textContent = `Timeline of ${name}`;
  $('timeline').innerHTML = '';
  await loadPage(name, undefined);
}

/** One page of the timeline, added below what is shown; the page's `next` becomes the "Older changes" button. */
async function loadPage(name, cursor) {
  const list = $('timeline');
  const query = `container=${encodeURIComponent(name)}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const res = await api('GET', `/v1/audit?${query}`);
  if (state.timeline !== name) return; // another container's timeline was opened meanwhile
  list.querySelector('li.older')?.remove();
  if (res.status !== 200) {
    list.insertAdjacentHTML('beforeend', `<li>${esc(errorText(res))}</li>`);
    return;
  }
  const items = res.body.entries.slice().reverse().map(item).join('');
  list.insertAdjacentHTML('beforeend', items || (cursor ? '' : '<li>No changes recorded yet.</li>'));
  if (res.body.next) {
    list.insertAdjacentHTML('beforeend', '<li class="older"><button type="button">Older changes</button></li>');
    list.querySelector('li.older button').addEventListener('click', () => void loadPage(name, res.body.next), { once: true });
  }
}

function item(e) {
  const moved = e.from ? `${versionOf(e.from)}${e.to ? ` → ${versionOf(e.to)}` : ''}` : '';
  const digests = [e.from, e.to].filter(Boolean).map((i) => short(i.digest) || short(i.image_id)).filter(Boolean);
  const folded = digests.length ? ` <details class="digests"><summary>digest</summary><span class="digest">${esc(digests.join(' → '))}</span></details>` : '';
  return `<li class="audit-${esc(e.action)} audit-${esc(e.outcome)}"><span class="type">${esc(ACTIONS[e.action] ?? e.action)}</span> ${esc(outcomeWords(e.outcome))}${moved ? ` <span class="change">${moved}</span>` : ''}${folded}${snapshotOf(e)} <small>${esc(new Date(e.time).toLocaleString())} · ${esc(e.trigger)}${e.actor ? ` · by <span class="actor">${esc(e.actor.name)}</span>` : ''}</small>${e.error ? ` <span class="err">${esc(e.error)}</span>` : ''}</li>`;
}

/** A volume snapshot the change took, or restored with a rollback (docs/snapshots.md). */
function snapshotOf(e) {
  if (!e.snapshot) return '';
  const volumes = (e.snapshot.volumes ?? []).join(', ');
  const words = e.snapshot.restored ? 'volumes restored from snapshot' : 'snapshot taken';
  return ` <span class="snapshot" title="${esc(volumes)}">${esc(words)} <span class="digest">${esc(e.snapshot.id)}</span></span>`;
}

const ACTIONS = { update: 'Update', rollback: 'Rollback', restart: 'Restart', repair: 'Repair', approve: 'Approval', reject: 'Rejection', defer: 'Deferral', release: 'Release' };

/** `rolled_back` → `rolled back`, `not_retried` → `not retried`. */
function outcomeWords(outcome) {
  return String(outcome ?? '').replace(/_/g, ' ');
}

/** The version an audit image names: its version when recorded, else its tag, else (nothing better) its short digest. */
function versionOf(image) {
  const text = image.version || tagOf(image.image) || short(image.digest) || short(image.image_id);
  return `<span class="version" title="${esc(image.image)}">${esc(text)}</span>`;
}
