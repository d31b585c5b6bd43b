// The JSON of a plan and of its steps (docs/plans.md, docs/http-api.md#plans): the schemas the routes
// declare (and so the Swagger description) and the mapping from the core's plan to them.
import type { AppliedPlan, Plan } from '../../core/index.js';

const text = { type: 'string' } as const;

const stepProperties = {
  container: text,
  host: { type: 'string', description: 'The engine, when the container names one (docs/hosts.md)' },
  from: {
    type: 'object',
    required: ['image', 'digest'],
    description: 'What the container runs now',
    properties: { image: text, digest: { type: 'string', description: 'Registry digest, else the local image id' } },
  },
  to: {
    type: 'object',
    required: ['image'],
    description: 'The exact candidate: the reference the new container runs and the digest pulled',
    properties: { image: text, digest: text, tag: text, version: text },
  },
  wave: { type: 'integer', minimum: 1, description: 'Dependency order: a step runs after every step it depends on, of a lower wave' },
  restarts: { type: 'array', items: text, description: 'Dependents recreated on their current image with this step' },
} as const;

const stepRequired = ['container', 'from', 'to', 'wave', 'restarts'];

export const skippedSchema = {
  type: 'array',
  description: 'Stale containers left alone, each with the reason (a gate, a hold, a failed check…)',
  items: {
    type: 'object',
    required: ['container', 'reason'],
    properties: { container: text, host: text, reason: text },
  },
} as const;

export const planSchema = {
  type: 'object',
  required: ['plan_id', 'expires_at', 'steps', 'skipped', 'targeted'],
  properties: {
    plan_id: { type: 'string', format: 'uuid', description: 'Apply it with POST /v1/update?plan=ID' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time', description: 'After this the plan is gone (--plan-ttl)' },
    targeted: { type: 'boolean', description: 'Whether filters narrowed it' },
    steps: { type: 'array', description: 'In the order they are applied', items: { type: 'object', required: stepRequired, properties: stepProperties } },
    skipped: skippedSchema,
  },
} as const;

/** The steps of an applied plan, each with what became of it. */
export const appliedStepsSchema = {
  type: 'array',
  description: 'With ?plan=ID: every step of the plan and its outcome',
  items: {
    type: 'object',
    required: [...stepRequired, 'outcome'],
    properties: {
      ...stepProperties,
      outcome: { type: 'string', enum: ['updated', 'skipped', 'failed', 'rolled_back'] },
      reason: { type: 'string', description: 'Why, when not updated (`changed since plan`, the error…)' },
    },
  },
} as const;

export function planJson(plan: Plan): Record<string, unknown> {
  return {
    plan_id: plan.planId,
    created_at: plan.createdAt.toISOString(),
    expires_at: plan.expiresAt.toISOString(),
    targeted: plan.targeted,
    steps: plan.steps,
    skipped: plan.skipped,
  };
}

export function appliedJson(applied: AppliedPlan): Record<string, unknown> {
  return { plan_id: applied.planId, steps: applied.steps };
}
