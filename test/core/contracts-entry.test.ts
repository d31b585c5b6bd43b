// The contracts entry (docs/plugins.md#contracts): a contract one plugin offers lives in its folder and reaches
// other plugins and third parties through `tidewatch/contracts`, which holds contracts only, and no longer
// through the core's surface.
import { readFileSync } from 'node:fs';
import t from 'tap';
import * as core from '../../core/index.js';
import * as contracts from '../../contracts/index.js';

t.test('the entry re-exports the plugins\' contracts, and only contract files', async (t) => {
  t.equal(contracts.GITHUB_API.name, 'github-api');
  t.equal(contracts.SIGNATURE_VERDICTS.name, 'signature-verdicts');
  t.equal(contracts.notificationServiceKey('Pigeon').name, 'notification-service:pigeon');
  const source = readFileSync(new URL('../../contracts/index.ts', import.meta.url), 'utf8');
  const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1] as string);
  t.ok(specifiers.length >= 3);
  // A plugin's contract file: contracts.js, service.js, or a contract of its own concern named *-contracts.js.
  for (const specifier of specifiers) t.match(specifier, /^\.\.\/plugins\/[a-z-]+\/([a-z-]+-)?(contracts|service)\.js$/, `${specifier}: a contract file`);
  for (const moved of ['GITHUB_API', 'SIGNATURE_VERDICTS', 'notificationServiceKey', 'STATE_STORE', 'LOCAL_IMAGES', 'PULL_CREDENTIALS', 'UPDATE_POLICIES', 'PEOPLE', 'ATTESTATION_VERIFIER']) {
    t.notOk(moved in core, `${moved} is no longer the core's`);
    t.ok(moved in contracts, `${moved} is in the contracts entry`);
  }
  t.equal(contracts.STATE_STORE.name, 'state-store');
  t.equal(contracts.LOCAL_IMAGES.name, 'local-images');
  t.equal(contracts.UPDATE_POLICIES.name, 'update-policies');
  t.equal(contracts.containerKey({ name: 'web', host: 'tcp://a:2376' }), 'tcp://a:2376|web', 'with the rules that come with a contract');
});

t.test('package.json exports it as tidewatch/contracts (the built entry)', async (t) => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, { default: string }> };
  t.equal(pkg.exports['./contracts']?.default, './dist/contracts/index.js');
  const built = (await import('tidewatch/contracts')) as typeof contracts;
  t.equal(built.GITHUB_API.name, 'github-api', 'resolves through the package\'s own name');
});
