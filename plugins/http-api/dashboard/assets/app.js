// Tidewatch dashboard (docs/dashboard.md). Plain ES module, no dependencies: it calls the HTTP API's own
// routes with the tokens a person enters, kept in sessionStorage only. The main token goes in the
// Authorization header; the events token is the one the API takes in a query (EventSource cannot set
// headers), which is why it is a separate token.
import { renderMarkdown } from './markdown.js';

const $ = (id) => document.getElementById(id);
const store = window.sessionStorage;
const state = {
  containers: [],
  checks: new Map(), // name -> { record, at }
  details: new Map(), // name -> /v1/containers/details entry (the last check's tag fields, from any run)
  updating: new Set(),
  sort: { key: 'name', dir: 1 },
  events: null,
  ownRun: false,
  notesOpen: new Set(), // names whose release notes are expanded, kept across renders
};

const esc = (value) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const short = (digest) => (digest ? digest.replace(/^sha256:/, '').slice(0, 12) : '');
const when = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');

function setStatus(text) {
  $('status').textContent = text;
}

function showMessage(text) {
  const el = $('message');
  el.textContent = text ?? '';
  el.hidden = !text;
}

/** An API call with the main token; resolves to { status, body } and never throws for an HTTP status. */
async function api(method, path) {
  const res = await fetch(path, { method, headers: { authorization: `Bearer ${store.getItem('tw-token') ?? ''}` } });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  return { status: res.status, body };
}

function errorText(res) {
  if (res.status === 401) return 'The API token was refused: sign in again.';
  if (res.status === 429 && !res.body) return 'Too many requests: wait a moment.';
  return res.body?.error ?? `The API answered ${res.status}.`;
}

// ---------------------------------------------------------------- sign in

async function signIn(token, eventsToken) {
  store.setItem('tw-token', token);
  store.setItem('tw-events-token', eventsToken);
  const res = await api('GET', '/v1/containers');
  if (res.status !== 200) {
    store.removeItem('tw-token');
    store.removeItem('tw-events-token');
    const error = $('login-error');
    error.textContent = res.status === 401 ? 'Wrong token: the API refused it.' : errorText(res);
    error.hidden = false;
    return false;
  }
  $('login').hidden = true;
  $('app').hidden = false;
  $('logout').hidden = false;
  state.containers = res.body.containers;
  seedChecks();
  fillScopes();
  render();
  void loadDetails();
  void openFeed();
  void loadHistory();
  void loadApprovals();
  return true;
}

function signOut() {
  store.clear();
  state.events?.close();
  location.reload();
}

// ---------------------------------------------------------------- the table

function rows() {
  const q = $('search').value.trim().toLowerCase();
  const staleOnly = $('stale-only').checked;
  const errorsOnly = $('errors-only').checked;
  const scope = $('scope').value;
  const { key, dir } = state.sort;
  return state.containers
    .filter((c) => {
      const check = state.checks.get(c.name)?.record;
      if (q && !c.name.toLowerCase().includes(q) && !c.image.toLowerCase().includes(q)) return false;
      if (staleOnly && !check?.update_available) return false;
      if (errorsOnly && !check?.error) return false;
      if (scope && c.scope !== scope) return false;
      return true;
    })
    .sort((a, b) => String(a[key]).localeCompare(String(b[key])) * dir);
}

// A version when one is known (docs/dashboard.md#versions); its digest on demand (folded), or the digest
// itself when there is no version to show.
function versionCell(label, version, digest) {
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
function versionsOf(r, d) {
  const src = r ?? d;
  if (!src) return { current: '', latest: '', kind: '', note: '' };
  const stale = r ? r.update_available : d.stale;
  const tag = VERSION_POLICIES.has(src.tag_policy) ? src.current_tag : '';
  const current = src.latest_tag ? src.current_tag : (src.current_image_version || d?.current_image_version || tag || '');
  // A candidate's own version (docs/versions.md) comes with the last check, through /details.
  const latest = src.latest_tag || (stale ? (d?.stale ? d.latest_image_version ?? '' : '') : current);
  return { current: current ?? '', latest, kind: stale ? (src.update_kind ?? '') : '', note: src.note ?? '' };
}

function links(record, d) {
  if (!record && !d) return '';
  const out = [];
  const changelog = record?.changelog || (record?.update_available !== false && d?.stale ? d.changelog : '');
  for (const [label, url] of [['changes', changelog], ['source', record?.oci_source], ['docs', record?.documentation]]) {
    if (url && /^https?:\/\//.test(url)) out.push(`<a href="${esc(url)}" rel="noreferrer" target="_blank">${label}</a>`);
  }
  return out.join(' ');
}

// The releases an update brings (docs/dashboard.md#release-notes), folded; rendered by the safe renderer.
function releaseNotes(name, d, stale) {
  const notes = stale && d?.stale ? d.release_notes : undefined;
  if (!notes?.length) return '';
  const entries = notes
    .map((n) => `<article class="release"><h3>${/^https?:\/\//i.test(n.url) ? `<a href="${esc(n.url)}" rel="noopener noreferrer nofollow" target="_blank">${esc(n.title || n.version)}</a>` : esc(n.title || n.version)}</h3><div class="markdown">${renderMarkdown(n.body)}</div></article>`)
    .join('');
  const open = state.notesOpen.has(name) ? ' open' : '';
  return `<details class="release-notes" data-notes="${esc(name)}"${open}><summary>release notes (${notes.length})</summary>${entries}</details>`;
}

// Each cell names its column in data-label: on a narrow screen the rows become cards and show it.
function row(c) {
  const entry = state.checks.get(c.name);
  const r = entry?.record;
  const busy = state.updating.has(c.name);
  // A held row is held (docs/state.md#holds), never a green "up to date": its update waits for a release.
  const held = c.held && !busy && !r?.error;
  const update = busy ? 'updating…' : held ? 'held' : r ? (r.error ? 'error' : r.update_available ? 'available' : 'up to date') : '';
  const updateClass = held ? 'update-held' : r && !r.error ? (r.update_available ? 'update-yes' : 'update-no') : '';
  // What windows and approvals say (docs/policies.md): next opening, approval pending / deferred / rejected.
  const policy = [c.approval && `approval ${c.approval}`, c.next_window && `next window ${new Date(c.next_window).toLocaleString()}`];
  const flags = [c.monitor_only && 'monitor-only', c.no_pull && 'no-pull', c.scope && `scope ${c.scope}`, c.held && 'held', ...policy]
    .filter(Boolean)
    .map((f) => `<span class="flag">${esc(f)}</span>`)
    .join('') + failedFlag(c.failed_candidate);
  // The signature verdict on the latest digest (docs/signatures.md), when verification is on.
  const sig = r?.signature ? ` <span class="sig sig-${esc(r.signature)}">${esc(r.signature)}</span>` : '';
  const current = r?.update_source === 'git' ? r.current_revision || '' : r?.digest || c.digest;
  const latest = r ? (r.update_source === 'git' ? r.git_commit : r.latest_digest) : '';
  const v = versionsOf(entry?.seeded ? undefined : r, state.details.get(c.name));
  // current → latest for a tag update, then the kind (docs/dashboard.md#versions).
  const arrow = v.kind && v.latest && v.current ? ` <span class="change">${esc(v.current)} → ${esc(v.latest)}</span>` : '';
  const change = v.kind ? `${arrow} <span class="kind kind-${esc(v.kind)}">${esc(v.kind)}</span>` : '';
  const note = v.note ? `<p class="note">${esc(v.note)}</p>` : '';
  const details = state.details.get(c.name);
  const notes = r?.error ? '' : releaseNotes(c.name, details, r ? r.update_available : details?.stale);
  return `<tr data-name="${esc(c.name)}" class="${r?.update_available ? 'stale' : ''}">
<td data-label="Name" class="name" data-timeline="${esc(c.name)}">${esc(c.name)}</td><td data-label="Image" class="image">${esc(c.image)}</td><td data-label="State">${esc(c.state)}</td><td data-label="Source">${esc(r?.update_source ?? c.update_source)}</td>
${versionCell('Current', v.current, current)}${versionCell('Latest', v.latest, latest)}
<td data-label="Update" class="${updateClass}${r?.error ? ' err' : ''}" title="${esc(r?.error ?? '')}">${esc(r?.error ? `error: ${r.error}` : update)}${r?.error ? '' : change}${sig}${note}${notes}</td>
<td data-label="Flags">${flags}</td><td data-label="Checked">${esc(entry ? when(entry.at) : '')}</td><td data-label="Links">${links(r, state.details.get(c.name))}</td>
<td data-label="Actions">${actions(c, r, busy)}</td>
</tr>`;
}

// A candidate that failed in this container and is not retried (docs/state.md#failed-candidates): the flag
// carries the digest and why; the Update button (a person's targeted update) or Release tries it again.
function failedFlag(failed) {
  if (!failed) return '';
  const why = `${short(failed.digest) || short(failed.image_id)} failed: ${failed.reason}`;
  return `<span class="flag flag-failed" title="${esc(why)}">not retried: ${esc(why)}</span>`;
}

// A monitor-only container is never updated (docs/dashboard.md): it has no Update or Rollback button.
function actions(c, r, busy) {
  const out = [`<button type="button" data-check="${esc(c.name)}">Check</button>`];
  if (!c.monitor_only) {
    out.push(`<button type="button" data-update="${esc(c.name)}" ${r?.update_available && !busy && !c.held ? '' : 'disabled'}>Update</button>`);
    // Only where the service knows the image it ran before its last update (docs/state.md).
    if (c.rollback_available) out.push(`<button type="button" data-rollback="${esc(c.name)}" ${busy ? 'disabled' : ''}>Rollback</button>`);
  }
  if (c.held || c.failed_candidate) out.push(`<button type="button" data-release="${esc(c.name)}">Release</button>`);
  return out.join(' ');
}

function render() {
  const started = performance.now();
  const list = rows();
  $('containers').tBodies[0].innerHTML = list.map(row).join('');
  for (const b of document.querySelectorAll('th button[data-sort]')) {
    b.setAttribute('aria-sort', b.dataset.sort === state.sort.key ? (state.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  setStatus(statusText());
  window.__twLastRenderMs = performance.now() - started;
}

function statusText() {
  const stale = state.containers.filter((c) => state.checks.get(c.name)?.record.update_available).length;
  return `${state.containers.length} containers, ${stale} with an update`;
}

function fillScopes() {
  const scopes = [...new Set(state.containers.map((c) => c.scope).filter(Boolean))].sort();
  $('scope').innerHTML = '<option value="">all</option>' + scopes.map((s) => `<option>${esc(s)}</option>`).join('');
}

async function refreshContainers() {
  const res = await api('GET', '/v1/containers');
  if (res.status === 200) state.containers = res.body.containers;
  seedChecks();
  await loadDetails();
  await loadApprovals();
}

/**
 * The last check of each container as /v1/containers says it (kept by the service across restarts,
 * docs/state.md): shown until this tab has a newer check record of its own.
 */
function seedChecks() {
  for (const c of state.containers) {
    if (!c.checked_at) continue;
    const mine = state.checks.get(c.name);
    if (mine && Date.parse(mine.at) >= Date.parse(c.checked_at) && mine.record.image_id === c.image_id) continue;
    const record = { name: c.name, image_id: c.image_id, digest: c.digest, update_source: c.update_source, update_available: c.update_available, latest_digest: c.latest_digest };
    // A check that failed stays an error, not "up to date", after a restart or a run started elsewhere.
    if (c.check_error) record.error = c.check_error;
    // Seeded: /v1/containers carries no tag fields; versionsOf reads them from /v1/containers/details.
    state.checks.set(c.name, { record, at: c.checked_at, seeded: true });
  }
}

async function rollback(name) {
  if (!(await confirmDialog(`Roll ${name} back to the image it ran before its last update?`, 'Rollback'))) return;
  showMessage('');
  state.updating.add(name);
  state.ownRun = true;
  render();
  const res = await api('POST', `/v1/rollback?container=${encodeURIComponent(name)}`);
  state.updating.delete(name);
  state.ownRun = false;
  await refreshContainers();
  render();
  if (res.status !== 200) showMessage(errorText(res));
  else if (res.body.summary.failed > 0) showMessage(`The previous image of ${name} did not start: the current one still runs.`);
  else showMessage(`${name} rolled back to ${short(res.body.to.digest) || short(res.body.to.image_id)}; it is held until released.`);
  if (state.timeline === name) void loadTimeline(name);
}

async function release(name) {
  const res = await api('POST', `/v1/release?container=${encodeURIComponent(name)}`);
  if (res.status !== 200) showMessage(errorText(res));
  await refreshContainers();
  render();
}

/** The audit trail of one container, newest first (docs/state.md#the-audit-trail). */
async function loadTimeline(name) {
  state.timeline = name;
  $('timeline-title').textContent = `Timeline of ${name}`;
  const res = await api('GET', `/v1/audit?container=${encodeURIComponent(name)}&limit=50`);
  const list = $('timeline');
  if (res.status !== 200) {
    list.innerHTML = `<li>${esc(errorText(res))}</li>`;
    return;
  }
  const image = (i) => (i ? esc(short(i.digest) || short(i.image_id)) : '');
  list.innerHTML =
    res.body.entries
      .slice()
      .reverse()
      .map((e) => `<li class="audit-${esc(e.outcome)}"><span class="type">${esc(e.action)}</span> ${esc(e.outcome)} ${image(e.from)}${e.to ? ` → ${image(e.to)}` : ''} <small>${esc(new Date(e.time).toLocaleString())} · ${esc(e.trigger)}</small>${e.error ? ` <span class="err">${esc(e.error)}</span>` : ''}</li>`)
      .join('') || '<li>No changes recorded yet.</li>';
}

/** The last check's fields of every container (tags, update kind, note), whoever ran that check. */
async function loadDetails() {
  const res = await api('GET', '/v1/containers/details');
  if (res.status !== 200) return;
  state.details = new Map(res.body.containers.filter((d) => d.checked_at).map((d) => [d.name, d]));
  render();
}

// ---------------------------------------------------------------- actions

// A check the user asked for clears the message line; one the page makes on its own (after a run started
// elsewhere) leaves it: the answer to the user's last action (a rollback's) stays readable.
async function check(name, { keepMessage = false } = {}) {
  if (!keepMessage) showMessage('');
  const button = name ? null : $('check-all');
  if (button) button.disabled = true;
  setStatus(name ? `checking ${name}…` : 'checking…');
  const res = await api('POST', name ? `/v1/check?container=${encodeURIComponent(name)}` : '/v1/check');
  if (button) button.disabled = false;
  if (res.status !== 200) {
    showMessage(errorText(res));
    render();
    return;
  }
  for (const record of res.body.containers) state.checks.set(record.name, { record, at: record.timestamp });
  render();
  // The versions and release notes this check found are in /details (the check record has no such fields).
  await loadDetails();
}

function confirmDialog(text, ok) {
  return new Promise((resolve) => {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    $('confirm-ok').textContent = ok;
    dialog.returnValue = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}

async function update(name) {
  const r = state.checks.get(name)?.record;
  const to =
    r?.update_source === 'git'
      ? `commit ${short(r.git_commit)}`
      : r?.latest_tag
        ? `${r.latest_tag}${r.update_kind ? ` (${r.update_kind})` : ''}`
        : `digest ${short(r?.latest_digest)}`;
  if (!(await confirmDialog(`Update ${name} to ${to}?`, 'Update'))) return;
  showMessage('');
  state.updating.add(name);
  state.ownRun = true;
  render();
  const res = await api('POST', `/v1/update?container=${encodeURIComponent(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)}`);
  state.updating.delete(name);
  state.ownRun = false;
  await refreshContainers();
  await check(name);
  if (res.status !== 200) showMessage(errorText(res));
}

async function updateAll() {
  const stale = state.containers.filter((c) => state.checks.get(c.name)?.record.update_available);
  if (stale.length === 0) {
    showMessage('Nothing to update: run "Check now" first.');
    return;
  }
  if (!(await confirmDialog(`Update all ${stale.length} stale containers?`, `Update ${stale.length}`))) return;
  showMessage('');
  for (const c of stale) state.updating.add(c.name);
  state.ownRun = true;
  render();
  const res = await api('POST', '/v1/update');
  state.updating.clear();
  state.ownRun = false;
  await refreshContainers();
  await check();
  // After the re-check, which clears the message line: a refusal (say the 429 of a run in progress) stays.
  if (res.status !== 200) showMessage(errorText(res));
}

// ---------------------------------------------------------------- live feed and history

function feedLine(type, data) {
  const item = document.createElement('li');
  const who = data.container ? ` ${data.container}` : '';
  // A tag update's update_completed names where the container came from (old_image) and where it is now.
  const moved = data.old_image && data.image && data.old_image !== data.image ? `: ${data.old_image} → ${data.image}` : '';
  const detail = data.error ? `: ${data.error}` : data.scanned !== undefined ? `: scanned ${data.scanned}, updated ${data.updated}, failed ${data.failed}` : moved;
  item.innerHTML = `<span class="type">${esc(type)}</span>${esc(who)}${esc(detail)} <small>${esc(new Date().toLocaleTimeString())}</small>`;
  const feed = $('feed');
  feed.prepend(item);
  while (feed.children.length > 100) feed.lastElementChild.remove();
}

/**
 * Whether the events token is accepted: EventSource hides the status of a refused stream, so one plain
 * request with the token in a header asks first (and is cancelled as soon as the status is known).
 */
async function eventsTokenAccepted(token) {
  const abort = new AbortController();
  try {
    const res = await fetch('/v1/events', { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
    return res.status !== 401;
  } catch {
    return true; // a network error is the EventSource's to retry and report
  } finally {
    abort.abort();
  }
}

async function openFeed() {
  const token = store.getItem('tw-events-token');
  if (!token) {
    feedLine('feed off', { error: 'no events token given' });
    return;
  }
  if (!(await eventsTokenAccepted(token))) {
    showMessage('Wrong events token: the live feed was refused. Sign out and enter the events token again.');
    feedLine('feed off', { error: 'events token refused' });
    return;
  }
  const source = new EventSource(`/v1/events?access_token=${encodeURIComponent(token)}`);
  state.events = source;
  const runsWithUpdates = new Set();
  const types = ['scan_started', 'scan_completed', 'scan_failed', 'image_cleanup', 'update_started', 'update_completed', 'update_failed'];
  for (const type of types) {
    source.addEventListener(type, (message) => {
      const { data } = JSON.parse(message.data);
      feedLine(type, data);
      if (type === 'update_started') state.updating.add(data.container);
      if (type === 'update_completed' || type === 'update_failed') {
        state.updating.delete(data.container);
        runsWithUpdates.add(data.run_id);
      }
      if (type.startsWith('update_')) render();
      if (type === 'scan_completed' || type === 'scan_failed') {
        void loadHistory();
        if (state.timeline) void loadTimeline(state.timeline);
        // Any run (the scheduler's too) leaves its checks in /v1/containers: show them.
        if (!state.ownRun) void refreshContainers().then(render);
        // A run that replaced containers (from here, the scheduler or anyone else) changed digests:
        // reload the list, and re-check when this tab has check results that are now out of date.
        if (runsWithUpdates.delete(data.run_id)) void afterOutsideUpdate();
      }
    });
  }
  source.onopen = () => setStatus(statusText());
  source.onerror = () => setStatus('live feed reconnecting…');
}

async function afterOutsideUpdate() {
  if (state.ownRun) return; // update() and updateAll() refresh on their own
  await refreshContainers();
  if (state.checks.size > 0) await check(undefined, { keepMessage: true });
  else render();
}

function chart(entries) {
  if (entries.length === 0) return '';
  const max = Math.max(1, ...entries.map((e) => e.summary.scanned));
  const w = 100 / entries.length;
  const bars = entries
    .map((e, i) => {
      const x = (i * w).toFixed(2);
      const h = (v) => ((v / max) * 80).toFixed(1);
      return `<rect class="bar-scanned" x="${x}" y="${90 - h(e.summary.scanned)}" width="${(w * 0.8).toFixed(2)}" height="${h(e.summary.scanned)}"><title>${esc(e.kind)} ${esc(e.started_at)}: scanned ${e.summary.scanned}</title></rect>
<rect class="bar-updated" x="${x}" y="${90 - h(e.summary.updated)}" width="${(w * 0.4).toFixed(2)}" height="${h(e.summary.updated)}"></rect>
<rect class="bar-failed" x="${(i * w + w * 0.4).toFixed(2)}" y="${90 - h(e.summary.failed)}" width="${(w * 0.4).toFixed(2)}" height="${h(e.summary.failed)}"></rect>`;
    })
    .join('');
  const ms = entries.map((e) => Math.max(0, Date.parse(e.finished_at) - Date.parse(e.started_at)));
  const maxMs = Math.max(1, ...ms);
  const points = ms.map((v, i) => `${(i * w + w * 0.4).toFixed(2)},${(90 - (v / maxMs) * 80).toFixed(1)}`).join(' ');
  const legend = `<p class="legend"><span class="key key-scanned"></span>scanned <span class="key key-updated"></span>updated <span class="key key-failed"></span>failed <span class="key key-duration"></span>duration (longest ${(maxMs / 1000).toFixed(1)} s)</p>`;
  return `<svg viewBox="0 0 100 90" preserveAspectRatio="none" aria-hidden="true">${bars}<polyline class="line-duration" points="${points}"></polyline></svg>${legend}`;
}

async function loadHistory() {
  const res = await api('GET', '/v1/history?limit=30');
  if (res.status !== 200) return;
  const entries = res.body.entries;
  $('chart').innerHTML = chart(entries);
  $('history').tBodies[0].innerHTML = entries
    .slice(-10)
    .reverse()
    .map((e) => {
      const ms = Date.parse(e.finished_at) - Date.parse(e.started_at);
      return `<tr><td>${esc(when(e.started_at))}</td><td>${esc(e.kind)}${e.targeted ? ' (targeted)' : ''}</td><td>${e.summary.scanned}</td><td>${e.summary.updated}</td><td>${e.summary.failed}</td><td>${(ms / 1000).toFixed(1)} s</td></tr>`;
    })
    .join('');
}

// ---------------------------------------------------------------- waiting for you (docs/policies.md#approvals)

const DECISION_TEXT = { approve: 'Approve', reject: 'Reject', defer: 'Defer 24 h' };

/** Pending and deferred approvals, with the versions; hidden when there are none or the endpoint is off. */
async function loadApprovals() {
  const res = await api('GET', '/v1/approvals');
  const panel = $('approvals-panel');
  const open = res.status === 200 ? res.body.approvals.filter((a) => a.state === 'pending' || a.state === 'deferred') : [];
  panel.hidden = open.length === 0;
  $('approvals').innerHTML = open
    .map((a) => {
      const to = a.latest_tag ?? `digest ${short(a.latest_digest)}`;
      const from = a.current_tag ? `${esc(a.current_tag)} → ` : '';
      const kind = a.update_kind ? ` <span class="kind kind-${esc(a.update_kind)}">${esc(a.update_kind)}</span>` : '';
      const deferred = a.state === 'deferred' ? ` <small>deferred until ${esc(new Date(a.deferred_until).toLocaleString())}</small>` : '';
      const buttons = Object.entries(DECISION_TEXT)
        .map(([d, label]) => `<button type="button" data-decide="${esc(d)}" data-approval="${esc(a.id)}">${label}</button>`)
        .join(' ');
      return `<li data-approval-row="${esc(a.container)}"><strong>${esc(a.container)}</strong> <span class="change">${from}${esc(to)}</span>${kind} <span class="image">${esc(a.image)}</span>${deferred} <small>asked ${esc(new Date(a.requested_at).toLocaleString())}</small> ${buttons}</li>`;
    })
    .join('');
}

async function decide(id, decision) {
  const entry = [...$('approvals').querySelectorAll('li')].find((li) => li.querySelector(`[data-approval="${CSS.escape(id)}"]`));
  const name = entry?.dataset.approvalRow ?? 'this container';
  const question = { approve: `Approve the update of ${name}? It is applied in its update window.`, reject: `Reject this update of ${name}? It will not be asked again; a newer version asks anew.`, defer: `Ask again about ${name} in 24 hours?` }[decision];
  if (!(await confirmDialog(question, DECISION_TEXT[decision]))) return;
  showMessage('');
  const res = await api('POST', `/v1/approvals/${encodeURIComponent(id)}/${decision}?by=dashboard`);
  if (res.status !== 202) showMessage(errorText(res));
  else showMessage(`${name}: ${res.body.state}${res.body.run_id ? ', updating now' : ''}.`);
  await refreshContainers();
  render();
}

// ---------------------------------------------------------------- wiring

$('approvals').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-decide]');
  if (button) void decide(button.dataset.approval, button.dataset.decide);
});

$('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  $('login-error').hidden = true;
  void signIn($('token').value, $('events-token').value);
});
$('logout').addEventListener('click', signOut);
$('check-all').addEventListener('click', () => void check());
$('update-all').addEventListener('click', () => void updateAll());
for (const id of ['search', 'stale-only', 'errors-only', 'scope']) $(id).addEventListener('input', render);
document.querySelector('#containers thead').addEventListener('click', (event) => {
  const key = event.target.closest('button[data-sort]')?.dataset.sort;
  if (!key) return;
  state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : 1 };
  render();
});
// An expanded note stays expanded when the table is drawn again ('toggle' does not bubble: capture it).
$('containers').tBodies[0].addEventListener(
  'toggle',
  (event) => {
    const name = event.target.dataset?.notes;
    if (name === undefined) return;
    if (event.target.open) state.notesOpen.add(name);
    else state.notesOpen.delete(name);
  },
  true,
);
$('containers').tBodies[0].addEventListener('click', (event) => {
  const cell = event.target.closest('[data-timeline]');
  if (cell) void loadTimeline(cell.dataset.timeline);
  const button = event.target.closest('button');
  if (!button) return;
  if (button.dataset.check) void check(button.dataset.check);
  if (button.dataset.update) void update(button.dataset.update);
  if (button.dataset.rollback) void rollback(button.dataset.rollback);
  if (button.dataset.release) void release(button.dataset.release);
  if (button.dataset.copy) void navigator.clipboard?.writeText(button.dataset.copy);
});

// A link with the tokens in its fragment (`#token=…&events-token=…`, what the demo prints: docs/dashboard.md#signing-in)
// signs in without pasting them. A fragment never leaves the browser (not in requests, not in a Referer); it
// is dropped from the address bar and the history entry at once, so the tokens stay in sessionStorage only.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.has('token')) {
  history.replaceState(null, '', location.pathname + location.search);
  void signIn(fragment.get('token') ?? '', fragment.get('events-token') ?? '');
} else {
  const saved = store.getItem('tw-token');
  if (saved) void signIn(saved, store.getItem('tw-events-token') ?? '');
}
