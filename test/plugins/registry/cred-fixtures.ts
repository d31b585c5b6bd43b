// Fixtures for credential tests: a config.json in a temporary DOCKER_CONFIG, and a credential helper
// script put on PATH that answers from a JSON file (and records what it was asked).
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export function configDir(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'tidewatch-dockercfg-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

export function basicAuth(user: string, password: string): string {
  return Buffer.from(`${user}:${password}`).toString('base64');
}

export interface FakeHelper {
  /** The name to put in credsStore / credHelpers. */
  name: string;
  /** Server URLs it was asked about, in order. */
  asked(): string[];
}

/**
 * Installs `docker-credential-<name>` on PATH (for this process): a shell script answering
 * `get` from `secrets` (server URL → { Username, Secret }), "credentials not found" otherwise.
 */
export function installHelper(name: string, secrets: Record<string, { Username: string; Secret: string }>): FakeHelper {
  const dir = mkdtempSync(join(tmpdir(), 'tidewatch-credhelper-'));
  const log = join(dir, 'asked.log');
  const script = join(dir, `docker-credential-${name}`);
  // Plain sh, no interpreter start-up: one `case` arm per server URL.
  const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
  const arms = Object.entries(secrets)
    .map(([server, answer]) => `  ${quote(server)}) printf '%s' ${quote(JSON.stringify({ ServerURL: server, ...answer }))} ;;`)
    .join('\n');
  writeFileSync(
    script,
    `#!/bin/sh
[ "$1" = get ] || { echo "unsupported $1" >&2; exit 1; }
read -r server
printf '%s\\n' "$server" >> ${quote(log)}
case "$server" in
${arms}
  *) echo "credentials not found in native keychain"; exit 1 ;;
esac
`,
  );
  chmodSync(script, 0o755);
  process.env.PATH = `${dir}${delimiter}${process.env.PATH ?? ''}`;
  return {
    name,
    asked: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
  };
}
