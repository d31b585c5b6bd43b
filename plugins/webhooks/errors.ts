// The webhook plugin's error codes (docs/errors.md#webhooks). Messages never carry a token, a secret or a
// request path (which may hold a token).
import { createError } from '../../core/index.js';

export const webhookErrors = Object.freeze({
  spec: createError('TW_ERR_WEBHOOK_SPEC', (why: string) => why, 400),
  notFound: createError('TW_ERR_WEBHOOK_NOT_FOUND', () => 'no such webhook receiver', 404),
  unauthorized: createError('TW_ERR_WEBHOOK_UNAUTHORIZED', () => 'missing or invalid webhook token or signature', 401),
  mediaType: createError(
    'TW_ERR_WEBHOOK_MEDIA_TYPE',
    (type: string) => `unsupported content type ${JSON.stringify(type)}: send application/json or application/vnd.docker.distribution.events.v1+json`,
    415,
  ),
  payload: createError('TW_ERR_WEBHOOK_PAYLOAD', (why: string) => `webhook payload is not JSON: ${why}`, 400),
  invalid: createError('TW_ERR_WEBHOOK_INVALID', (why: string) => `webhook payload refused: ${why}`, 400),
  backlog: createError('TW_ERR_WEBHOOK_BACKLOG', (max: number) => `webhook backlog full (${max} repositories waiting); retry later`, 429),
});
