// The docker credential-helper protocol: `docker-credential-<name> get`, the server URL on stdin,
// `{"ServerURL","Username","Secret"}` on stdout. A Username of `<token>` means Secret is an identity
// (refresh) token. "credentials not found" is an answer, not a failure.
import { TidewatchError } from '../../core/index.js';

export interface HelperCredentials {
  readonly username?: string;
  readonly password?: string;
  readonly identityToken?: string;
}

const NOT_FOUND = /credentials not found/i;
const HELPER_NAME = /^[A-Za-z0-9._-]+$/;

export class CredentialHelperError extends TidewatchError {
  constructor(helper: string, detail: string) {
    super('TW_ERR_REGISTRY_CREDENTIAL_HELPER', `credential helper docker-credential-${helper} failed: ${detail}`, 500);
    this.name = 'CredentialHelperError';
  }
}

/** Runs the helper found on PATH; undefined when it has no credentials for `serverUrl`. */
export function runCredentialHelper(
  helper: string,
  serverUrl: string,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<HelperCredentials | undefined> {
  // The name comes from config.json; keep it a plain file name so it can only select a helper on PATH.
  if (!HELPER_NAME.test(helper)) return Promise.reject(new CredentialHelperError(helper, 'invalid helper name'));
  return new Promise((resolve, reject) => {
    // node:child_process loads with the first helper asked, not with the service (docs/performance.md#footprint).
    const child = process.getBuiltinModule('node:child_process').spawn(`docker-credential-${helper}`, ['get'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 10_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (err) => reject(new CredentialHelperError(helper, err.message)));
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const output = `${stdout} ${stderr}`.trim();
        if (NOT_FOUND.test(output)) return resolve(undefined);
        const why = signal ? `killed by ${signal}` : `exit code ${code}`;
        return reject(new CredentialHelperError(helper, output ? `${why}: ${output.slice(0, 200)}` : why));
      }
      try {
        const parsed = JSON.parse(stdout) as { Username?: unknown; Secret?: unknown };
        const username = typeof parsed.Username === 'string' ? parsed.Username : '';
        const secret = typeof parsed.Secret === 'string' ? parsed.Secret : '';
        if (secret === '') return resolve(undefined);
        if (username === '<token>') return resolve({ identityToken: secret });
        resolve({ username, password: secret });
      } catch {
        reject(new CredentialHelperError(helper, 'output is not JSON'));
      }
    });
    child.stdin.on('error', () => undefined); // a helper that exits without reading stdin
    child.stdin.end(serverUrl);
  });
}
