// The package version, read once from package.json (two levels up from both server/ and dist/server/).
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync } = process.getBuiltinModule('node:fs');

export function readPackageVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tidewatch' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return 'unknown';
}
