// GET /v1/auth/me (docs/people.md#the-dashboard), served with the dashboard: who the caller is and what
// their role lets them do, so the page shows the name and hides the controls the role may not use, and
// whether single sign-on is offered. It answers 200 without a credential too (`signed_in: false`): the
// dashboard asks before anyone signed in, to know whether to show "Sign in with SSO". It tells a caller
// nothing but what their own credential is worth.
import type { FastifyPluginAsync } from 'fastify';
import { PEOPLE } from '../../../contracts/index.js';
import type { RouteContext } from '../context.js';
import { envelope, envelopeProperties } from '../envelope.js';

const actorSchema = {
  type: 'object',
  properties: { kind: { type: 'string' }, name: { type: 'string' } },
} as const;

export function meRoutes(ctx: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/v1/auth/me',
      {
        config: { access: 'none' },
        schema: {
          summary: 'Who is signed in',
          description: 'The caller\'s name and role (from the main token, a personal token or a session), and whether single sign-on is configured.',
          tags: ['people'],
          response: {
            200: {
              type: 'object',
              required: ['signed_in', 'sso', 'api_version', 'timestamp'],
              properties: {
                signed_in: { type: 'boolean' },
                sso: { type: 'boolean' },
                actor: actorSchema,
                role: { type: 'string', enum: ['viewer', 'operator', 'admin'] },
                via: { type: 'string', enum: ['token', 'session'] },
                ...envelopeProperties,
              },
            },
          },
        },
      },
      async (request) => {
        const sso = ctx.core.services.get(PEOPLE)?.sso ?? false;
        const found = ctx.access?.identify(request);
        if (found === undefined || typeof found === 'string') return envelope({ signed_in: false, sso });
        return envelope({ signed_in: true, sso, actor: found.actor, role: found.role, via: found.via });
      },
    );
  };
}
