// The engine that does not answer at all (docs/troubleshooting.md#the-engine-does-not-answer): the first thing
// a user with a wrong socket mount sees, so it is a 503 that names the engine and what to check, not a 500
// quoting a connect error. An engine that answered with an error (an HTTP status, a socket proxy's refusal)
// is not this: it keeps its own error.
import { TidewatchError, errorMessage } from '../../core/index.js';

export const ENGINE_UNREACHABLE = 'TW_ERR_ENGINE_UNREACHABLE';

/** Errors of a connection that never reached an engine. */
const CONNECT_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'EPERM', 'ENOTSOCK', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET']);

export function isConnectFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (typeof (err as { statusCode?: unknown }).statusCode === 'number') return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && CONNECT_CODES.has(code);
}

function adviceFor(host: string, code: string): string {
  if (host.startsWith('unix://') || host.startsWith('npipe://')) {
    const path = host.replace(/^[a-z]+:\/\//, '');
    if (code === 'EACCES' || code === 'EPERM') return `the socket ${path} is there but not readable by this user: run as root or add the socket's group (--group-add, docs/security.md)`;
    return `check that the engine's socket is mounted at ${path} (-v /var/run/docker.sock:${path}) or that --host (DOCKER_HOST) names the right one`;
  }
  if (host.startsWith('ssh://')) return 'check that sshd listens at that address and port, and that --host (DOCKER_HOST) names it (docs/ssh-hosts.md)';
  return 'check that the engine listens there, that --host (DOCKER_HOST) names it, and its TLS settings (docs/hosts.md)';
}

/** Every engine failed to connect: one 503 naming each and what to check. */
export function engineUnreachable(failures: ReadonlyArray<{ host: string; err: unknown }>): TidewatchError {
  const parts = failures.map(({ host, err }) => {
    const code = String((err as { code?: unknown }).code ?? 'error');
    return `the container engine at ${host} does not answer (${code}): ${adviceFor(host, code)}`;
  });
  return new TidewatchError(ENGINE_UNREACHABLE, parts.join('; '), 503, { cause: failures[0]?.err ?? new Error(errorMessage(failures)) });
}
