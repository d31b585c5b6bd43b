// Small helpers of the dashboard's page (docs/dashboard.md): element lookup, escaping, short digests and
// times, the status line, the message line and the confirmation dialog.
export const $ = (id) => document.getElementById(id);

export const esc = (value) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
export const short = (digest) => (digest ? digest.replace(/^sha256:/, '').slice(0, 12) : '');
export const when = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');

export function setStatus(text) {
  $('status').textContent = text;
}

/**
 * The message line: the answer to a person's last action. `ok` for a success (a rollback that worked is
 * news, not an error: never the red banner), otherwise an error.
 */
export function showMessage(text, tone = 'error') {
  const el = $('message');
  el.textContent = text ?? '';
  el.hidden = !text;
  el.classList.toggle('message-ok', tone === 'ok');
  el.setAttribute('role', tone === 'ok' ? 'status' : 'alert');
}

/** The tag of an image reference (`host:5000/app:1.2` → `1.2`), or '' when it names none or a digest. */
export function tagOf(image) {
  const name = String(image ?? '').split('@')[0];
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : '';
}

/** Asks; `detail` (a node) is shown under the question, e.g. the plan behind "Update all". */
export function confirmDialog(text, ok, detail) {
  return new Promise((resolve) => {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    $('confirm-detail').replaceChildren(...(detail ? [detail] : []));
    $('confirm-ok').textContent = ok;
    dialog.returnValue = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}
