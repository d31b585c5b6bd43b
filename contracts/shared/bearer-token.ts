// How a bearer token is read from an Authorization header, shared by every route that takes one: the HTTP API's
// own guards and the webhook receivers it serves (docs/webhooks.md) read tokens the same way (contracts/shared).

/**
 * The token an Authorization header carries: `Bearer <token>` (any case), or the raw value (what Swagger UI
 * sends for an apiKey scheme, and Harbor's "Auth Header"); undefined when none.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const bearer = /^bearer\s+(.*)$/i.exec(value);
  const token = bearer ? (bearer[1] as string).trim() : value;
  return token === '' ? undefined : token;
}
