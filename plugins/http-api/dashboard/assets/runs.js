// The Runs panel (docs/dashboard.md#what-it-shows): the last runs as a chart and a table, each run named by what
// started it (its history record's `trigger`, `kind` and `targeted`), not by its kind alone.
import { api } from './api.js';
import { $, esc, when } from './dom.js';

function chart(entries) {
  if (entries.length === 0) return '';
  const max = Math.max(1, ...entries.map((e) => e.summary.scanned));
  const w = 100 / entries.length;
  const bars = entries
    .map((e, i) => {
      const x = (i * w).toFixed(2);
      const h = (v) => ((v / max) * 80).toFixed(1);
      return `<rect class="bar-scanned" x="${x}" y="${90 - h(e.summary.scanned)}" width="${(w * 0.8).toFixed(2)}" height="${h(e.summary.scanned)}"><title>${esc(runLabel(e))} ${esc(e.started_at)}: scanned ${e.summary.scanned}</title></rect>
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

/** What started a run, in words: `scheduled update`, `rollback`, `update by webhook reg`… */
export function runLabel(entry) {
  const kind = entry.kind === 'check' ? 'check' : 'update';
  const trigger = entry.trigger ?? '';
  if (trigger === 'rollback') return 'rollback';
  if (trigger === 'schedule') return `scheduled ${kind}`;
  if (trigger === 'startup') return `${kind} at start-up`;
  if (trigger === 'run-once') return `${kind} (run once)`;
  if (trigger === 'approval') return `${kind} after approval`;
  if (trigger === 'mqtt') return `${kind} from Home Assistant`;
  if (trigger === 'dashboard') return `${kind} from the dashboard`;
  if (trigger === 'embed') return `${kind} (embedded)`;
  if (trigger.startsWith('webhook:')) return `${kind} by webhook ${trigger.slice('webhook:'.length)}`;
  // `api`, or a record from before triggers were kept: who chose the containers.
  const scope = entry.targeted ? 'chosen containers' : 'all containers';
  if (trigger === 'api' || trigger === '') return `${kind} of ${scope} (API)`;
  return `${kind} (${trigger})`;
}

export async function loadHistory() {
  const res = await api('GET', '/v1/history?limit=30');
  if (res.status !== 200) return;
  const entries = res.body.entries;
  $('chart').innerHTML = chart(entries);
  $('history').tBodies[0].innerHTML = entries
    .slice(-10)
    .reverse()
    .map((e) => {
      const ms = Date.parse(e.finished_at) - Date.parse(e.started_at);
      const failed = e.error ? ` <span class="err">${esc(e.error)}</span>` : '';
      return `<tr data-trigger="${esc(e.trigger ?? '')}"><td>${esc(when(e.started_at))}</td><td class="run-kind">${esc(runLabel(e))}${failed}</td><td title="scanned ${e.summary.scanned}, updated ${e.summary.updated}, failed ${e.summary.failed}">${e.summary.scanned} / ${e.summary.updated} / ${e.summary.failed}</td><td>${(ms / 1000).toFixed(1)} s</td></tr>`;
    })
    .join('');
}
