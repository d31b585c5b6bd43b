// Which updates wait for a person (docs/policies.md#approvals): `none`, `major`, `minor` (minor and major) or
// `all` (patch and digest updates too). The kind is the tag policy's `update_kind`; an update on the same tag
// is a digest update, asked about only under `all`. A target's `approval` label replaces --approval.
import { readLabel, type TagFacts, type Target } from '../../core/index.js';
import { APPROVAL_POLICIES, type ApprovalPolicy } from './options.js';

export function policyOf(target: Target, global: ApprovalPolicy): ApprovalPolicy | Error {
  const label = readLabel(target.labels, 'approval');
  if (label === undefined) return global;
  const value = label.trim().toLowerCase();
  return (APPROVAL_POLICIES as readonly string[]).includes(value)
    ? (value as ApprovalPolicy)
    : new Error(`the approval label "${label.slice(0, 40)}" is not one of ${APPROVAL_POLICIES.join(', ')}`);
}

export function needsApproval(policy: ApprovalPolicy, kind: TagFacts['updateKind']): boolean {
  switch (policy) {
    case 'none':
      return false;
    case 'all':
      return true;
    case 'minor':
      return kind === 'minor' || kind === 'major';
    case 'major':
      return kind === 'major';
  }
}
