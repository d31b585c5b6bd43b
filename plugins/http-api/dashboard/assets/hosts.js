// The Hosts panel (docs/fleet.md#offline-is-visible): the agents that dial in, online or offline, when each was
// last seen, its stage and versions. Hidden when the `agents` endpoint is off, the person is not an admin, or
// no agent is enrolled. Every value is set as escaped text.
import { api } from './api.js';
import { $, esc } from './dom.js';

const REFRESH_MS = 30_000;
let timer;

export async function loadHosts() {
  clearTimeout(timer);
  const res = await api('GET', '/v1/agents');
  const panel = $('hosts-panel');
  const agents = res.status === 200 ? res.body.agents : [];
  panel.hidden = agents.length === 0;
  $('hosts').innerHTML = agents
    .map((a) => {
      const seen = a.last_seen ? new Date(a.last_seen).toLocaleString() : 'never';
      return `<tr data-host="${esc(a.host)}"><td>${esc(a.host)}</td><td><span class="host-${a.state === 'online' ? 'online' : 'offline'}">${esc(a.state)}</span></td>` +
        `<td>${esc(seen)}</td><td>${esc(a.stage)}</td><td>${esc(a.version ?? '')}</td><td>${esc(a.engine_version ?? '')}</td><td>${esc(a.containers ?? '')}</td></tr>`;
    })
    .join('');
  if (res.status === 200) timer = setTimeout(() => void loadHosts(), REFRESH_MS);
}
