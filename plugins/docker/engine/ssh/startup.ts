// ssh:// engines at start (docs/ssh-hosts.md#at-start): the key and known_hosts settings are read, and each
// host's key is checked before anything runs. A host whose key is unknown, changed or revoked stops the start
// with exit code 2 and one line naming --ssh-known-hosts and the host; a host that does not answer in time
// only delays its own containers, as any engine that is down (docs/hosts.md#when-an-engine-is-down).
import { invalidOptions } from '../../../../core/index.js';
import type { EngineClient } from '../client.js';
import { isSshHost } from './address.js';
import { isSshHostKeyError } from './errors.js';
import { sshSettings, type SshOptionValues, type SshSettings } from './settings.js';

/** How long start-up waits for each ssh:// host's handshake (all at once). */
export const HOST_KEY_WAIT_MS = 5000;

/** The settings when an ssh:// host is configured; undefined otherwise (nothing read, ssh2 not loaded). */
export async function sshSettingsFor(hosts: readonly string[], options: SshOptionValues): Promise<SshSettings | undefined> {
  return hosts.some(isSshHost) ? sshSettings(options) : undefined;
}

/** Pings every ssh:// engine; throws the configuration error of the first host key refused. */
export async function checkHostKeysAtStart(engines: readonly { readonly host: string; readonly docker: EngineClient }[], waitMs = HOST_KEY_WAIT_MS): Promise<void> {
  const outcomes = await Promise.all(
    engines
      .filter((engine) => isSshHost(engine.host))
      .map(async ({ docker }) => {
        // A race, not the call's abort signal: Node's http reports an abort only once the connection it waits
        // for is made, and an SSH connection may take its whole handshake timeout. The ping goes on unwatched.
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, waitMs, undefined)));
        const checked = docker.ping().then(
          () => undefined,
          // Anything else (refused, unreachable, slow) is the engine's error in runs, not a configuration error.
          (err: unknown) => (isSshHostKeyError(err) ? err : undefined),
        );
        try {
          return await Promise.race([checked, late]);
        } finally {
          clearTimeout(timer);
        }
      }),
  );
  const refused = outcomes.filter((err) => err !== undefined);
  if (refused.length === 0) return;
  const more = refused.length > 1 ? ` (and ${refused.length - 1} more ssh:// host${refused.length > 2 ? 's' : ''})` : '';
  throw invalidOptions('ssh-known-hosts', `--ssh-known-hosts: ${(refused[0] as Error).message}${more}`);
}
