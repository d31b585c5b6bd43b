// Webhook authentication (docs/webhooks.md#authentication): GitHub's documented HMAC test vector, tokens
// from the header or the path, and a receiver with both a token and a secret needing both.
import t from 'tap';
import { bearerToken } from '../../../contracts/shared/bearer-token.js';
import { authenticate, signBody, signatureMatches, tokenMatches } from '../../../plugins/webhooks/auth.js';
import type { WebhookReceiver } from '../../../plugins/webhooks/receivers.js';

// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
const SECRET = "It's a Secret to Everybody";
const PAYLOAD = 'Hello, World!';
const SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

t.test("GitHub's documented HMAC test vector", async (t) => {
  t.equal(signBody(SECRET, PAYLOAD), SIGNATURE, 'the same signature as GitHub computes');
  t.ok(signatureMatches(SECRET, Buffer.from(PAYLOAD), SIGNATURE), 'verified over the raw body');
  t.ok(signatureMatches(SECRET, Buffer.from(PAYLOAD), SIGNATURE.toUpperCase().replace('SHA256=', 'sha256=')), 'hex in any case');
  t.notOk(signatureMatches(SECRET, Buffer.from(`${PAYLOAD} `), SIGNATURE), 'one more byte: refused');
  t.notOk(signatureMatches('another secret', Buffer.from(PAYLOAD), SIGNATURE), 'another secret: refused');
  t.notOk(signatureMatches(SECRET, Buffer.from(PAYLOAD), undefined), 'no header: refused');
  t.notOk(signatureMatches(SECRET, Buffer.from(PAYLOAD), SIGNATURE.slice(0, -2)), 'a short signature: refused');
  t.notOk(signatureMatches(SECRET, Buffer.from(PAYLOAD), `sha1=${SIGNATURE.slice(7)}`), 'another algorithm: refused');
  t.notOk(signatureMatches(SECRET, Buffer.from(PAYLOAD), `sha256=${'0'.repeat(64)}`), 'zeros: refused');
});

t.test('tokens: header or path, compared whole', async (t) => {
  t.equal(bearerToken('Bearer abc'), 'abc');
  t.equal(bearerToken('bearer   abc '), 'abc');
  t.equal(bearerToken('abc'), 'abc', "a raw header value (Harbor's auth header)");
  t.equal(bearerToken(''), undefined);
  t.ok(tokenMatches('abc', 'abc'));
  t.notOk(tokenMatches('abc', 'abcd'));
  t.notOk(tokenMatches('abc', 'ab'));
  t.notOk(tokenMatches('abc', undefined));
  const receiver: WebhookReceiver = { name: 'r', kind: 'distribution', token: 'tok', secret: '', action: 'check' };
  const body = Buffer.from('{}');
  const none = { authorization: undefined, pathToken: undefined, signature: undefined, body };
  t.equal(authenticate(receiver, none), 'missing token');
  t.equal(authenticate(receiver, { ...none, authorization: 'Bearer tok' }), undefined);
  t.equal(authenticate(receiver, { ...none, pathToken: 'tok' }), undefined, 'the path form');
  t.equal(authenticate(receiver, { ...none, pathToken: 'nope' }), 'invalid token');
  t.equal(authenticate(receiver, { ...none, authorization: 'Bearer nope', pathToken: 'tok' }), 'invalid token', 'the header is the credential: no second chance');
  const both: WebhookReceiver = { ...receiver, secret: SECRET };
  t.equal(authenticate(both, { ...none, pathToken: 'tok' }), 'missing signature', 'token and secret: both needed');
  t.equal(authenticate(both, { ...none, pathToken: 'tok', signature: signBody(SECRET, body) }), undefined);
  const secretOnly: WebhookReceiver = { ...receiver, token: '', secret: SECRET };
  t.equal(authenticate(secretOnly, { ...none, signature: signBody(SECRET, body) }), undefined);
  t.equal(authenticate(secretOnly, { ...none, signature: signBody('x', body) }), 'invalid signature');
});
