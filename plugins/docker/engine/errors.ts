// Reading docker-modem's errors: they carry the Engine's HTTP status as `statusCode`.

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}

export function isNotFound(err: unknown): boolean {
  return statusOf(err) === 404;
}

/** 304: the container was already started or stopped. */
export function isNotModified(err: unknown): boolean {
  return statusOf(err) === 304;
}

/**
 * 409: a name in use, an image in use, a removal already in progress. Podman answers a create under a
 * name in use with 500 and "is already in use" (docs/podman.md): that is the same conflict.
 */
export function isConflict(err: unknown): boolean {
  const status = statusOf(err);
  return status === 409 || (status === 500 && /is already in use/.test(engineMessage(err)));
}

/** The Engine's own message when it gave one (docker-modem puts the JSON body in `json`). */
export function engineMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const json = (err as { json?: unknown }).json;
    if (typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string') {
      return (json as { message: string }).message;
    }
    if (err instanceof Error) return err.message;
  }
  return String(err);
}
