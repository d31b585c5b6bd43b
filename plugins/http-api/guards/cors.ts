// Cross-origin access (docs/http-api-contract.md §1, §5.1) with --http-api-cors-origins, as Watchtower configures it:
// listed origins get credentialed access; `*` gets any origin without credentials (browsers refuse
// `*` with credentials anyway). With no list nothing is sent and browsers keep to same-origin.
// Credentialed access plus the `access_token` cookie fallback is a CSRF exposure: docs/http-api.md
// says so, and recommends the Bearer header.
import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  await app.register(fastifyCors, {
    // Only a request that names an allowed origin is handled as CORS; anything else (no Origin, an
    // unknown one, a bare OPTIONS) goes on to routing and gets the API's own 404/405 JSON answers.
    origin: (origin: string | undefined, callback: (err: Error | null, allow: string | boolean) => void) => {
      if (origin === undefined) return callback(null, false);
      if (any) return callback(null, '*');
      callback(null, origins.includes(origin) ? origin : false);
    },
    credentials: !any,
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowedHeaders: ['Origin', 'Content-Type', 'Accept', 'Authorization', 'Last-Event-ID'],
    exposedHeaders: ['Retry-After'],
    maxAge: 3600,
    strictPreflight: false,
  });
}
