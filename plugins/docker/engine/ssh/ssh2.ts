// ssh2 (docs/ssh-hosts.md#why-ssh2: pure JavaScript, kept up, OpenSSH's stream-local forwarding) loads only
// when an ssh:// host is configured: it is 2 MB of modules an idle Tidewatch without one never needs
// (docs/performance.md#memory).
import type * as Ssh2 from 'ssh2';

export type Ssh2Module = Pick<typeof Ssh2, 'Client' | 'utils'>;

let loading: Promise<Ssh2Module> | undefined;

/** ssh2 is CommonJS: its exports are the ES module's default. */
export function loadSsh2(): Promise<Ssh2Module> {
  loading ??= import('ssh2').then((mod) => mod.default);
  return loading;
}
