// What a person's buttons do (docs/dashboard.md): check, update (one or all stale), rollback and release,
// each behind a confirmation where it changes a container.
import { api, errorText } from './api.js';
import { $, confirmDialog, setStatus, short, showMessage, tagOf } from './dom.js';
import { state } from './state.js';
import { loadDetails, refreshContainers, render } from './table.js';
import { missedText, planDetail } from './plan.js';
import { loadTimeline } from './timeline.js';

// A check the user asked for clears the message line; one the page makes on its own (after a run started
// elsewhere) leaves it: the answer to the user's last action (a rollback's) stays readable.
export async function check(name, { keepMessage = false } = {}) {
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

// A person's targeted update goes through a plan too (docs/plans.md): the question names the candidate the
// plan decided, and exactly that candidate is applied, even if the tag moves before the person confirms.
export async function update(name) {
  const r = state.checks.get(name)?.record;
  showMessage('');
  const planned = await api('POST', `/v1/plan?container=${encodeURIComponent(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)}`);
  if (planned.status !== 201) {
    showMessage(errorText(planned));
    return;
  }
  const step = planned.body.steps.find((s) => s.container === name);
  if (!step) {
    const skipped = planned.body.skipped.find((s) => s.container === name);
    showMessage(skipped ? `${name} is not updated now: ${skipped.reason}` : `Nothing to update for ${name} now.`, skipped ? 'error' : 'ok');
    return;
  }
  const newTag = step.to.tag && step.to.tag !== tagOf(step.from.image) ? step.to.tag : '';
  const to =
    r?.update_source === 'git'
      ? `commit ${short(r.git_commit)}`
      : newTag
        ? `${newTag}${r?.update_kind && r.latest_tag === newTag ? ` (${r.update_kind})` : ''}`
        : `digest ${short(step.to.digest)}`;
  if (!(await confirmDialog(`Update ${name} to ${to}?`, 'Update'))) return;
  state.updating.add(name);
  state.ownRun = true;
  render();
  const res = await api('POST', `/v1/update?plan=${encodeURIComponent(planned.body.plan_id)}`);
  state.updating.delete(name);
  state.ownRun = false;
  await refreshContainers();
  await check(name);
  if (res.status !== 200) showMessage(errorText(res));
  else if (missedText(res.body.steps)) showMessage(missedText(res.body.steps));
}

// The plan first (plan.js): what is shown is exactly what is applied, even if the registry moves meanwhile.
export async function updateAll() {
  showMessage('');
  const button = $('update-all');
  button.disabled = true;
  const planned = await api('POST', '/v1/plan');
  button.disabled = false;
  if (planned.status !== 201) {
    showMessage(errorText(planned));
    return;
  }
  const plan = planned.body;
  if (plan.steps.length === 0) {
    const why = plan.skipped.map((s) => `${s.container}: ${s.reason}`).join('; ');
    showMessage(why ? `Nothing to update now. ${why}` : 'Nothing to update: every container is up to date.', why ? 'error' : 'ok');
    return;
  }
  const count = plan.steps.length;
  if (!(await confirmDialog(`Update all ${count} stale containers?`, `Update ${count}`, planDetail(plan)))) return;
  for (const step of plan.steps) state.updating.add(step.container);
  state.ownRun = true;
  render();
  const res = await api('POST', `/v1/update?plan=${encodeURIComponent(plan.plan_id)}`);
  state.updating.clear();
  state.ownRun = false;
  await refreshContainers();
  await check();
  // After the re-check, which clears the message line: a refusal (say the 429 of a run in progress) stays.
  if (res.status !== 200) showMessage(errorText(res));
  else if (missedText(res.body.steps)) showMessage(missedText(res.body.steps));
}

export async function rollback(name) {
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
  else showMessage(`${name} rolled back to ${res.body.to.image || short(res.body.to.digest) || short(res.body.to.image_id)}; it is held until released.`, 'ok');
  if (state.timeline === name) void loadTimeline(name);
}

export async function release(name) {
  const res = await api('POST', `/v1/release?container=${encodeURIComponent(name)}`);
  if (res.status !== 200) showMessage(errorText(res));
  await refreshContainers();
  render();
}
