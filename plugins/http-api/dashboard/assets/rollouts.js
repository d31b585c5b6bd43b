// Rollouts (docs/rollouts.md): the staged rollouts the service keeps, newest change first, each stage with its
// hosts and state; a halted one says which host failed and offers Release (role operator).
import { api, errorText } from './api.js';
import { $, confirmDialog, esc, short, showMessage } from './dom.js';

const SHOWN = 20;

function stageLine(s) {
  const until = s.soak_until ? ` until ${new Date(s.soak_until).toLocaleString()}` : '';
  const hosts = s.hosts.map((h) => `<span class="host">${esc(h)}</span>`).join(', ');
  return `<li data-stage="${esc(String(s.stage))}" data-stage-state="${esc(s.state)}">stage ${esc(String(s.stage))}: <span class="rollout-state state-${esc(s.state)}">${esc(s.state)}${esc(until)}</span> — ${hosts}</li>`;
}

/** The last rollouts; the panel is hidden when there are none or the endpoint is off. */
export async function loadRollouts() {
  const res = await api('GET', `/v1/rollouts?limit=${SHOWN}`);
  const panel = $('rollouts-panel');
  const list = res.status === 200 ? res.body.rollouts : [];
  panel.hidden = list.length === 0;
  $('rollouts').innerHTML = list
    .map((r) => {
      const why = r.reason ? ` <span class="error">${esc(r.reason)}</span>` : '';
      const release = r.state === 'halted' ? ` <button type="button" data-release-rollout="${esc(r.id)}">Release</button>` : '';
      return `<li data-rollout="${esc(r.id)}" data-state="${esc(r.state)}"><strong>${esc(r.image)}</strong> <span class="digest">${esc(short(r.digest))}</span> <span class="rollout-state state-${esc(r.state)}">${esc(r.state)}</span>${why}${release}<ol class="stages">${r.stages.map(stageLine).join('')}</ol></li>`;
    })
    .join('');
}

export async function releaseRollout(id) {
  const row = $('rollouts').querySelector(`[data-rollout="${CSS.escape(id)}"] strong`);
  const image = row?.textContent ?? 'this image';
  if (!(await confirmDialog(`Release the halted rollout of ${image}? Its later stages are then updated.`, 'Release'))) return;
  const res = await api('POST', `/v1/rollouts/${encodeURIComponent(id)}/release`);
  if (res.status !== 202) showMessage(errorText(res));
  else showMessage(`Rollout of ${image} released: the later stages go on.`, 'ok');
  await loadRollouts();
}
