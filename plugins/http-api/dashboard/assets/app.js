// Tidewatch dashboard (docs/dashboard.md). Plain ES modules, no dependencies: the page calls the HTTP API's
// own routes with the tokens a person enters, kept in sessionStorage only (api.js). This module signs in
// and wires the page's controls to the modules of each part: the table (table.js), the buttons
// (actions.js), the timeline, the live feed, the Runs panel and the approvals.
import { check, release, rollback, update, updateAll } from './actions.js';
import { api, ENGINE_UNREACHABLE, errorText, store } from './api.js';
import { decide, loadApprovals } from './approvals.js';
import { loadRollouts, releaseRollout } from './rollouts.js';
import { loadHosts } from './hosts.js';
import { $ } from './dom.js';
import { openFeed } from './feed.js';
import { loadHistory } from './runs.js';
import { state } from './state.js';
import { fillScopes, loadDetails, render, seedChecks } from './table.js';
import { loadTimeline } from './timeline.js';

/**
 * Who is signed in and with which role (docs/people.md#the-dashboard): the name in the header, and the page
 * hides what the role may not do (body[data-role], app.css); the API refuses it anyway.
 */
async function showWho() {
  const me = await api('GET', '/v1/auth/me');
  if (me.status !== 200 || !me.body.signed_in) return me.body;
  document.body.dataset.role = me.body.role;
  $('who').textContent = `${me.body.actor.name} (${me.body.role})`;
  $('who').hidden = false;
  state.via = me.body.via;
  return me.body;
}

async function signIn(token, eventsToken) {
  if (token) store.setItem('tw-token', token);
  store.setItem('tw-events-token', eventsToken);
  const res = await api('GET', '/v1/containers');
  // The token was accepted but the engine does not answer: signed in, with the banner saying why (api.js).
  const engineDown = res.status === 503 && res.body?.code === ENGINE_UNREACHABLE;
  if (res.status !== 200 && !engineDown) {
    store.removeItem('tw-token');
    store.removeItem('tw-events-token');
    const error = $('login-error');
    error.textContent = res.status === 401 ? 'Wrong token: the API refused it.' : errorText(res);
    error.hidden = false;
    return false;
  }
  await showWho();
  $('login').hidden = true;
  $('app').hidden = false;
  $('logout').hidden = false;
  state.containers = engineDown ? [] : res.body.containers;
  seedChecks();
  fillScopes();
  render();
  void loadDetails();
  void openFeed();
  void loadHistory();
  void loadApprovals();
  void loadRollouts();
  void loadHosts();
  return true;
}

async function signOut() {
  // A session ends at the server too; a pasted token only leaves this tab.
  if (state.via === 'session') await fetch('/v1/auth/logout', { method: 'POST' });
  store.clear();
  state.events?.close();
  location.reload();
}

$('approvals').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-decide]');
  if (button) void decide(button.dataset.approval, button.dataset.decide);
});

$('rollouts').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-release-rollout]');
  if (button) void releaseRollout(button.dataset.releaseRollout);
});

$('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  $('login-error').hidden = true;
  void signIn($('token').value, $('events-token').value);
});
$('logout').addEventListener('click', () => void signOut());
$('check-all').addEventListener('click', () => void check());
$('update-all').addEventListener('click', () => void updateAll());
for (const id of ['search', 'stale-only', 'errors-only', 'scope', 'host-filter']) $(id).addEventListener('input', render);
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
  else
    void api('GET', '/v1/auth/me').then((me) => {
      // Signed in with SSO already (the session cookie), or offered the button when SSO is configured.
      if (me.status === 200 && me.body.signed_in) void signIn('', store.getItem('tw-events-token') ?? '');
      else if (me.status === 200 && me.body.sso) $('sso-offer').hidden = false;
    });
}
