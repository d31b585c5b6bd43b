// The container table (docs/dashboard.md): filters, sort, one row per container, and what fills it (the
// container list, the last check of each, /v1/containers/details).
import { api } from './api.js';
import { loadApprovals } from './approvals.js';
import { loadRollouts } from './rollouts.js';
import { $, esc, setStatus, short, when } from './dom.js';
import { state } from './state.js';
import { findings, links, releaseNotes, versionCell, versionsOf } from './versions.js';

function rows() {
  const q = $('search').value.trim().toLowerCase();
  const staleOnly = $('stale-only').checked;
  const errorsOnly = $('errors-only').checked;
  const scope = $('scope').value;
  const host = $('host-filter').value;
  const { key, dir } = state.sort;
  return state.containers
    .filter((c) => {
      const check = state.checks.get(c.name)?.record;
      if (q && !c.name.toLowerCase().includes(q) && !c.image.toLowerCase().includes(q)) return false;
      if (staleOnly && !check?.update_available) return false;
      if (errorsOnly && !check?.error) return false;
      if (scope && c.scope !== scope) return false;
      if (host && c.host !== host) return false;
      return true;
    })
    .sort((a, b) => String(a[key] ?? '').localeCompare(String(b[key] ?? '')) * dir);
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
  const found = r?.error ? '' : findings(r, details);
  return `<tr data-name="${esc(c.name)}" class="${r?.update_available ? 'stale' : ''}">
<td data-label="Name" class="name" data-timeline="${esc(c.name)}">${esc(c.name)}</td><td data-label="Host" class="host">${esc(c.host ?? '')}</td><td data-label="Image" class="image">${esc(c.image)}</td><td data-label="State">${esc(c.state)}</td><td data-label="Source">${esc(r?.update_source ?? c.update_source)}</td>
${versionCell('Current', v.current, current)}${versionCell('Latest', v.latest, latest)}
<td data-label="Update" class="${updateClass}${r?.error ? ' err' : ''}" title="${esc(r?.error ?? '')}">${esc(r?.error ? `error: ${r.error}` : update)}${r?.error ? '' : change}${sig}${note}${found}${notes}</td>
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

// The row buttons' attributes that name what they act on: a render rebuilds the rows, and a keyboard
// user's focus on one of them must survive it (results arrive one by one during a check, each one a render).
const FOCUS_KEYS = ['data-check', 'data-update', 'data-rollback', 'data-release'];

function focusedRowControl(body) {
  const el = document.activeElement;
  if (!el || !body.contains(el)) return undefined;
  const key = FOCUS_KEYS.find((k) => el.hasAttribute(k));
  return key ? { key, value: el.getAttribute(key) } : undefined;
}

export function render() {
  const started = performance.now();
  const list = rows();
  const body = $('containers').tBodies[0];
  const focused = focusedRowControl(body);
  body.innerHTML = list.map(row).join('');
  if (focused) body.querySelector(`[${focused.key}="${CSS.escape(focused.value)}"]`)?.focus();
  for (const b of document.querySelectorAll('th button[data-sort]')) {
    b.setAttribute('aria-sort', b.dataset.sort === state.sort.key ? (state.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  setStatus(statusText());
  window.__twLastRenderMs = performance.now() - started;
}

export function statusText() {
  const stale = state.containers.filter((c) => state.checks.get(c.name)?.record.update_available).length;
  return `${state.containers.length} containers, ${stale} with an update`;
}

export function fillScopes() {
  const scopes = [...new Set(state.containers.map((c) => c.scope).filter(Boolean))].sort();
  $('scope').innerHTML = '<option value="">all</option>' + scopes.map((s) => `<option>${esc(s)}</option>`).join('');
  // The engines the containers run on (docs/hosts.md), kept selected across refreshes.
  const chosen = $('host-filter').value;
  const hosts = [...new Set(state.containers.map((c) => c.host).filter(Boolean))].sort();
  $('host-filter').innerHTML = '<option value="">all</option>' + hosts.map((h) => `<option${h === chosen ? ' selected' : ''}>${esc(h)}</option>`).join('');
}

export async function refreshContainers() {
  const res = await api('GET', '/v1/containers');
  if (res.status === 200) state.containers = res.body.containers;
  fillScopes();
  seedChecks();
  await loadDetails();
  await loadApprovals();
  await loadRollouts();
}

/**
 * The last check of each container as /v1/containers says it (kept by the service across restarts,
 * docs/state.md): shown until this tab has a newer check record of its own.
 */
export function seedChecks() {
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

/** The last check's fields of every container (tags, update kind, note), whoever ran that check. */
export async function loadDetails() {
  const res = await api('GET', '/v1/containers/details');
  if (res.status !== 200) return;
  state.details = new Map(res.body.containers.filter((d) => d.checked_at).map((d) => [d.name, d]));
  render();
}
