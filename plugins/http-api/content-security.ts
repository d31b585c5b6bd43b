// The Content-Security-Policy of every page the API serves (the dashboard and Swagger UI): only this origin's
// scripts, styles and requests, no form posts anywhere, and never inside another site's frame (a framed page can
// be made to click for whoever frames it). docs/http-api.md#browsers-and-other-origins.
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
