// How long a client may take to send a request, and to keep an idle connection
// (docs/http-api.md#malformed-requests-and-timeouts). The timeouts cover receiving a request only,
// never preparing or streaming its answer: a run may last its own `timeout`, and the event stream
// stays open however quiet it is (its `: ping` every 15 s is the only traffic). A request that does
// not arrive in time is answered 408 with the error envelope and `Connection: close`
// (guards/client-errors.ts).

/** From the first byte of a request to the end of its headers. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** From the first byte of a request to the end of its body (at most 1 MiB). */
export const REQUEST_TIMEOUT_MS = 15_000;
/** An idle keep-alive connection is closed after this; above the 60 s idle timeout of common load balancers, so they close first. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How often Node checks the two request timeouts: a late request is answered within this of its deadline. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Node's own server options (http.createServer, https.createServer). */
export const NODE_TIMEOUTS = Object.freeze({
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
});

/** fastify's options, which it applies to the server it creates (it would set 0, no timeout, otherwise). */
export function timeoutOptions() {
  return {
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // No idle timeout on the socket: it would cut a long run's response and a quiet event stream.
    connectionTimeout: 0,
    http: { ...NODE_TIMEOUTS },
  } as const;
}
