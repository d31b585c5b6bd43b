// "Update all" through an exact plan (docs/dashboard.md, docs/plans.md): the page asks the API for the plan
// (POST /v1/plan), shows its steps and what it leaves alone before anything changes, and on confirmation
// applies exactly that plan (POST /v1/update?plan=ID). Everything shown is set as text, never as HTML:
// container names, tags and reasons come from the engine and the registry.
import { short, tagOf } from './dom.js';

function item(text) {
  const li = document.createElement('li');
  li.textContent = text;
  return li;
}

/** Where a step leads: its version or a new tag when it has one, else the digest. */
function targetOf(step) {
  const { to } = step;
  if (to.version) return to.version;
  if (to.tag && to.tag !== tagOf(step.from.image)) return to.tag;
  return `digest ${short(to.digest)}`;
}

export function stepText(step) {
  const restarts = step.restarts.length > 0 ? `; restarts ${step.restarts.join(', ')}` : '';
  return `${step.container} → ${targetOf(step)} (wave ${step.wave}${restarts})`;
}

/** The plan as the confirmation's detail: the steps in order, then the stale containers it leaves and why. */
export function planDetail(plan) {
  const box = document.createElement('div');
  const steps = document.createElement('ol');
  steps.id = 'plan-steps';
  for (const step of plan.steps) steps.append(item(stepText(step)));
  box.append(steps);
  if (plan.skipped.length > 0) {
    const heading = document.createElement('p');
    heading.textContent = `Left alone (${plan.skipped.length}):`;
    const skipped = document.createElement('ul');
    skipped.id = 'plan-skipped';
    for (const s of plan.skipped) skipped.append(item(`${s.container}: ${s.reason}`));
    box.append(heading, skipped);
  }
  return box;
}

/** After applying: the steps that were not updated, with why; '' when every step was. */
export function missedText(steps) {
  const missed = steps.filter((s) => s.outcome !== 'updated');
  if (missed.length === 0) return '';
  const list = missed.map((s) => `${s.container}: ${s.outcome.replace('_', ' ')}${s.reason ? ` (${s.reason})` : ''}`);
  return `${missed.length} of ${steps.length} not updated: ${list.join('; ')}`;
}
