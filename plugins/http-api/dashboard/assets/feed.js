// The live feed (docs/dashboard.md): the event stream, opened with the events token, and what the page
// refreshes when a run started elsewhere ends.
import { store } from './api.js';
import { check } from './actions.js';
import { $, esc, setStatus, showMessage } from './dom.js';
import { loadRollouts } from './rollouts.js';
import { loadHistory } from './runs.js';
import { state } from './state.js';
import { refreshContainers, render, statusText } from './table.js';
import { loadTimeline } from './timeline.js';

export function feedLine(type, data) {
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

export async function openFeed() {
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
  const types = ['scan_started', 'scan_completed', 'scan_failed', 'image_cleanup', 'update_started', 'update_completed', 'update_failed', 'rollout_halted'];
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
      if (type === 'rollout_halted' || type === 'scan_completed') void loadRollouts();
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
