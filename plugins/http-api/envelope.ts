// What every JSON body carries (docs/http-api-contract.md §9, docs/interface.md §4): `api_version` and an RFC 3339 `timestamp`,
// and the one error shape `{"error","code","api_version","timestamp"}` for every JSON error: the contract's
// fields plus the stable code of docs/errors.md.
import type { FastifyReply } from 'fastify';

export const API_VERSION = 'v1';

/**
 * Envelope time as Watchtower writes it (`time.RFC3339`, whole seconds, UTC), so clients that
 * compared or parsed Watchtower's envelopes see the same shape.
 */
export function envelopeTimestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface Envelope {
  api_version: string;
  timestamp: string;
}

export function envelope<T extends object>(body: T): T & Envelope {
  return { ...body, api_version: API_VERSION, timestamp: envelopeTimestamp() };
}

export interface ErrorBody extends Envelope {
  error: string;
  code: string;
}

export function errorBody(message: string, code: string): ErrorBody {
  return envelope({ error: message, code });
}

/** Sends the JSON error body; the reply's serializer for `status` must accept ErrorBody. */
export function sendError(reply: FastifyReply, status: number, message: string, code: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(errorBody(message, code));
}

/** JSON schemas of the envelope, for the route schemas (and so the Swagger description). */
export const envelopeProperties = {
  api_version: { type: 'string', enum: [API_VERSION], description: 'API version identifier' },
  timestamp: { type: 'string', format: 'date-time', description: 'When the response was generated (RFC 3339)' },
} as const;

export const errorSchema = {
  type: 'object',
  required: ['error', 'code', 'api_version', 'timestamp'],
  properties: {
    error: { type: 'string', description: 'Human-readable message' },
    code: { type: 'string', description: 'Stable error code (TW_ERR_…), listed in docs/errors.md' },
    ...envelopeProperties,
  },
} as const;

/** A response entry for a JSON error status. */
export function errorResponse(description: string): Record<string, unknown> {
  return { description, ...errorSchema };
}
