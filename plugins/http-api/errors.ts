// The API's own error codes, in the core's style (`createError(code, message, status)`); the error
// handler turns any error with a `statusCode` into the JSON error body of docs/interface.md §4.
import { createError } from '../../core/index.js';

export const httpErrors = Object.freeze({
  badQuery: createError('TW_ERR_HTTP_BAD_QUERY', (name: string, why: string) => `invalid '${name}' parameter: ${why}`, 400),
  badRange: createError('TW_ERR_HTTP_BAD_RANGE', () => "invalid time range: 'since' must not be after 'until'", 400),
  clientGone: createError('TW_ERR_HTTP_CLIENT_GONE', (what: string) => `${what} cancelled: the client closed the request`, 503),
  subscribersFull: createError(
    'TW_ERR_HTTP_SUBSCRIBERS',
    (max: number) => `too many event subscribers (limit ${max})`,
    503,
  ),
  noPreviousImage: createError(
    'TW_ERR_ROLLBACK_UNKNOWN',
    (name: string) => `no previous image is known for ${name}: this container was never updated by this Tidewatch, or was rolled back since`,
    404,
  ),
  noSnapshot: createError(
    'TW_ERR_ROLLBACK_NO_SNAPSHOT',
    (name: string) => `restore=volumes: no snapshot of ${name}'s volumes was taken before the update being rolled back`,
    404,
  ),
  previousImageGone: createError(
    'TW_ERR_ROLLBACK_IMAGE_GONE',
    (name: string, image: string) => `the previous image of ${name} (${image}) is no longer present locally`,
    409,
  ),
  unknownContainer: createError('TW_ERR_CONTAINER_UNKNOWN', (name: string) => `no container named ${name}`, 404),
  ambiguousContainer: createError(
    'TW_ERR_CONTAINER_AMBIGUOUS',
    (name: string, hosts: readonly string[]) => `${name} exists on several engines (${hosts.join(', ')}): add host=`,
    400,
  ),
  rollbackRefused: createError(
    'TW_ERR_ROLLBACK_REFUSED',
    (name: string, reason: string) => `${name} was not rolled back: ${reason}`,
    409,
  ),
  originForbidden: createError('TW_ERR_HTTP_ORIGIN', (origin: string) => `origin ${origin} is not allowed`, 403),
});
