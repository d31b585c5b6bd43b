// `--oidc-roles admin=GROUP,operator=GROUP,viewer=GROUP` (docs/people.md#roles-from-groups): which group of the
// identity provider gives which role. A person in several mapped groups gets the highest of their roles; a
// person in none gets no session.
import { ROLES, roleAllows, type Role } from '../../core/index.js';

export type RoleMap = ReadonlyMap<string, Role>;

export function parseRoleMap(raw: string): RoleMap {
  const map = new Map<string, Role>();
  for (const part of raw.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    const role = part.slice(0, eq).trim() as Role;
    const group = part.slice(eq + 1).trim();
    if (eq < 0 || !ROLES.includes(role) || group === '') {
      throw new Error(`expected ROLE=GROUP pairs separated by commas (roles: ${ROLES.join(', ')}), got ${JSON.stringify(part.slice(0, 100))}`);
    }
    const held = map.get(group);
    if (!held || roleAllows(role, held)) map.set(group, role);
  }
  if (map.size === 0) throw new Error('expected at least one ROLE=GROUP pair, e.g. admin=tidewatch-admins');
  return map;
}

/** The claim's groups (a list, or one string) mapped to the highest role they give; undefined for none. */
export function roleOfGroups(map: RoleMap, claim: unknown): Role | undefined {
  const groups = Array.isArray(claim) ? claim : typeof claim === 'string' ? [claim] : [];
  let best: Role | undefined;
  for (const group of groups) {
    const role = typeof group === 'string' ? map.get(group) : undefined;
    if (role && (!best || roleAllows(role, best))) best = role;
  }
  return best;
}
