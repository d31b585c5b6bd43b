// The container a rollback or release names (docs/http-api.md#post-v1rollbackcontainername): by exact name, and with
// several engines by `host=` too. A name held on several engines without `host=` is ambiguous (400 naming the
// engines), a name no engine holds is unknown (404), so that neither call answers as if it had acted.
import { exactNamePattern, type TidewatchCore } from '../../core/index.js';
import type { ContainerKey } from '../../contracts/index.js';
import { httpErrors } from './errors.js';

/** The key of the one container `key` names, its engine filled in when only one engine holds the name. */
export async function resolveContainerKey(core: TidewatchCore, key: ContainerKey): Promise<ContainerKey> {
  const filters = { containers: [exactNamePattern(key.name)], ...(key.host ? { hosts: [key.host] } : {}) };
  const found = (await core.targets({ trigger: 'api', filters })).filter(
    (target) => target.name === key.name && (key.host === undefined || target.host === key.host),
  );
  if (found.length === 0) throw httpErrors.unknownContainer(key.name);
  const hosts = [...new Set(found.map((target) => target.host).filter((host): host is string => host !== undefined))];
  if (key.host === undefined && hosts.length > 1) throw httpErrors.ambiguousContainer(key.name, hosts);
  const host = key.host ?? hosts[0];
  return { name: key.name, ...(host !== undefined ? { host } : {}) };
}
