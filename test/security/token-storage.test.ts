// Threat model row "personal API tokens" (docs/security.md#people-sessions-tokens-sign-in): a copy of the data
// directory (a backup, a volume snapshot) must not hold a usable credential, and a token taken back must stop
// working at once. Tokens are kept as their SHA-256 only; presenting the stored hash is not the token; an
// expired or revoked token is refused saying so. Fails when the registry keeps secrets or forgets revocations.
import t from 'tap';
import { createHash } from 'node:crypto';

import { openStateStore } from '../../plugins/state/store.js';
import { TokenRegistry, TOKENS_COLLECTION } from '../../plugins/people/tokens.js';

const sha = (value: string): Buffer => createHash('sha256').update(value).digest();

t.test('tokens are kept as hashes; revoked and expired ones are refused saying so', async (t) => {
  const store = await openStateStore({});
  const registry = new TokenRegistry(store);
  const { token, secret } = registry.create('ci', 'viewer', undefined);
  const kept = JSON.stringify(store.recordsPage(TOKENS_COLLECTION, { limit: 1000 }).entries);
  t.notOk(kept.includes(secret), 'the secret is not kept');
  t.ok(kept.includes(token.hash), 'its hash is');
  t.equal(registry.authenticate(sha(secret)).status, 'ok', 'the token opens');
  t.equal(registry.authenticate(sha(token.hash)).status, 'unknown', 'the stored hash presented as a token opens nothing');
  t.match(registry.authenticate(sha(secret)), { status: 'ok', principal: { role: 'viewer', actor: { kind: 'token', name: 'ci' } } });

  registry.revoke(token.id);
  t.same(registry.authenticate(sha(secret)), { status: 'refused', reason: 'API token revoked' }, 'revoked: refused at once');
  const reopened = new TokenRegistry(store);
  t.same(reopened.authenticate(sha(secret)), { status: 'refused', reason: 'API token revoked' }, 'and after a restart');

  const brief = registry.create('brief', 'admin', 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  t.same(registry.authenticate(sha(brief.secret)), { status: 'refused', reason: 'API token expired' }, 'expired: refused');
  t.ok(/^tw_[A-Za-z0-9_-]{43}$/.test(brief.secret), '256 random bits');
  registry.close();
  reopened.close();
});
