// The errors of an ssh:// engine (docs/ssh-hosts.md, docs/errors.md). A refused host key is its own code:
// at start it is a configuration error (exit 2), later the check error of that host alone.
import { TidewatchError } from '../../../../core/index.js';
import type { HostKeyVerdict } from './known-hosts.js';

export const SSH_HOST_KEY = 'TW_ERR_SSH_HOST_KEY';
export const SSH_FAILED = 'TW_ERR_SSH';

/** The host's key is not vouched for by the known_hosts file: unknown, changed or revoked. Never trusted on first use. */
export class SshHostKeyError extends TidewatchError {
  constructor(
    readonly verdict: Exclude<HostKeyVerdict, 'known'>,
    message: string,
  ) {
    super(SSH_HOST_KEY, message, 502);
    this.name = 'SshHostKeyError';
  }
}

export function isSshHostKeyError(err: unknown): err is SshHostKeyError {
  return err instanceof SshHostKeyError;
}

/** The SSH server answered but refused: the key, the user, or the forwarding to the engine's socket. */
export function sshFailed(message: string, cause: unknown): TidewatchError {
  return new TidewatchError(SSH_FAILED, message, 502, { cause });
}
