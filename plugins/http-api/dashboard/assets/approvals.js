// Waiting for you (docs/policies.md#approvals): pending and deferred approvals, and a person's decision.
import { api, errorText } from './api.js';
import { $, confirmDialog, esc, short, showMessage } from './dom.js';
import { state } from './state.js';
import { refreshContainers, render } from './table.js';

const DECISION_TEXT = { approve: 'Approve', 'approve-now': 'Approve now', reject: 'Reject', defer: 'Defer 24 h' };

/** When the entry's container next opens its update window, while every one of its windows is closed. */
function nextWindowOf(a) {
  const c = state.containers.find((row) => row.name === a.container && (!a.host || !row.host || row.host === a.host));
  return c?.next_window ?? '';
}

/** Pending and deferred approvals, with the versions; hidden when there are none or the endpoint is off. */
export async function loadApprovals() {
  // The open ones by their state, on the store's index (docs/http-api.md#pages): at most one per container, and
  // never hidden behind pages of decided ones.
  const [pending, deferred] = await Promise.all(['pending', 'deferred'].map((s) => api('GET', `/v1/approvals?state=${s}&limit=1000`)));
  const panel = $('approvals-panel');
  const open = [pending, deferred]
    .flatMap((res) => (res.status === 200 ? res.body.approvals : []))
    .sort((a, b) => a.requested_at.localeCompare(b.requested_at));
  panel.hidden = open.length === 0;
  $('approvals').innerHTML = open
    .map((a) => {
      const to = a.latest_tag ?? `digest ${short(a.latest_digest)}`;
      const from = a.current_tag ? `${esc(a.current_tag)} → ` : '';
      const kind = a.update_kind ? ` <span class="kind kind-${esc(a.update_kind)}">${esc(a.update_kind)}</span>` : '';
      const by = a.actor ? ` by <span class="actor">${esc(a.actor.name)}</span>` : '';
      const deferred = a.state === 'deferred' ? ` <small>deferred${by} until ${esc(new Date(a.deferred_until).toLocaleString())}</small>` : '';
      // Approve now only where a closed window would hold the approval back; otherwise Approve applies at once.
      const next = nextWindowOf(a);
      const buttons = Object.entries(DECISION_TEXT)
        .filter(([d]) => d !== 'approve-now' || next)
        .map(([d, label]) => `<button type="button" data-decide="${esc(d)}" data-approval="${esc(a.id)}">${label}</button>`)
        .join(' ');
      return `<li data-approval-row="${esc(a.container)}" data-next-window="${esc(next)}"><strong>${esc(a.container)}</strong> <span class="change">${from}${esc(to)}</span>${kind} <span class="image">${esc(a.image)}</span>${deferred} <small>asked ${esc(new Date(a.requested_at).toLocaleString())}</small> ${buttons}</li>`;
    })
    .join('');
}

/** What a decision asks first: "applied in its update window" only when a closed window will hold it back. */
export function question(decision, name, nextWindow) {
  const when = nextWindow
    ? `It is applied in its update window, which opens ${new Date(nextWindow).toLocaleString()}.`
    : 'It is applied now.';
  return {
    approve: `Approve the update of ${name}? ${when}`,
    'approve-now': `Approve the update of ${name} and apply it now, outside its update window?`,
    reject: `Reject this update of ${name}? It will not be asked again; a newer version asks anew.`,
    defer: `Ask again about ${name} in 24 hours?`,
  }[decision];
}

export async function decide(id, decision) {
  const entry = [...$('approvals').querySelectorAll('li')].find((li) => li.querySelector(`[data-approval="${CSS.escape(id)}"]`));
  const name = entry?.dataset.approvalRow ?? 'this container';
  if (!(await confirmDialog(question(decision, name, entry?.dataset.nextWindow), DECISION_TEXT[decision]))) return;
  showMessage('');
  const path = decision === 'approve-now' ? 'approve' : decision;
  const now = decision === 'approve-now' ? '&now=true' : '';
  const res = await api('POST', `/v1/approvals/${encodeURIComponent(id)}/${path}?by=dashboard${now}`);
  if (res.status !== 202) showMessage(errorText(res));
  else showMessage(`${name}: ${res.body.state}${res.body.run_id ? ', updating now' : ''}.`, 'ok');
  await refreshContainers();
  render();
}
