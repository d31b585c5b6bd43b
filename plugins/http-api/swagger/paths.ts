// Where the Swagger page lives: cheap to load, the server reads it before knowing whether Swagger UI's
// assets (swagger/ui.ts) are needed.
export const SWAGGER_PREFIX = '/swagger';

/** `/swagger/` is served by the same page (rewritten before routing, so relative URLs still hold). */
export function rewriteSwaggerRoot(url: string): string {
  if (url === `${SWAGGER_PREFIX}/` || url.startsWith(`${SWAGGER_PREFIX}/?`)) {
    return `${SWAGGER_PREFIX}/index.html${url.slice(SWAGGER_PREFIX.length + 1)}`;
  }
  return url;
}
