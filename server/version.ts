// The package version, read once from package.json (two levels up from both server/ and dist/server/).

// node:fs through getBuiltinModule, not an ES import: Node's ES facade of node:fs reads every export, fs.promises
// too, which loads the promise API, streams and readline into an idle agent (docs/fleet.md#footprint).
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
