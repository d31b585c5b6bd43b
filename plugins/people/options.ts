// The people plugin's options (docs/people.md): single sign-on with OpenID Connect and how long a session
// lasts. Personal API tokens need none: an admin creates them through the API (endpoint name `tokens`).
import { SHARED_OPTIONS, invalidOptions, option, type OptionValues } from '../../core/index.js';
import { parseRoleMap } from './role-map.js';

const group = 'People and single sign-on';

/** An issuer is an `https:` URL, or `http:` to a loopback address only (a provider on the same host, tests). */
export function parseIssuer(raw: string): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`expected the issuer's URL (https://id.example/realms/main), got ${JSON.stringify(value.slice(0, 200))}`);
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`expected an https: issuer URL (http: only to a loopback address), got ${JSON.stringify(value.slice(0, 200))}`);
  }
  return value;
}

export const peopleOptions = {
  oidcIssuer: option.string({
    flag: 'oidc-issuer', valueName: '<url>', watchtowerEnv: null, group, parse: parseIssuer,
    description: 'OpenID Connect issuer (its discovery document is <url>/.well-known/openid-configuration); turns single sign-on on.',
  }),
  oidcClientId: option.string({
    flag: 'oidc-client-id', valueName: '<id>', watchtowerEnv: null, group, description: 'The client id Tidewatch is registered under at the provider.',
  }),
  oidcClientSecret: option.string({
    flag: 'oidc-client-secret', valueName: '<secret|file>', watchtowerEnv: null, secret: true, group,
    description: 'The client secret (or a file holding it).',
  }),
  oidcRoles: option.string({
    flag: 'oidc-roles', valueName: '<role=group,…>', watchtowerEnv: null, group,
    parse: (raw) => {
      parseRoleMap(raw);
      return raw.trim();
    },
    description: 'Groups mapped to roles: admin=GROUP,operator=GROUP,viewer=GROUP (a role may be named several times).',
  }),
  oidcRoleClaim: option.string({
    flag: 'oidc-role-claim', valueName: '<claim>', default: 'groups', watchtowerEnv: null, group,
    description: 'The ID token (or userinfo) claim listing the person\'s groups.',
  }),
  sessionTtlMs: option.duration({
    flag: 'session-ttl', default: 8 * 3_600_000, positive: true, watchtowerEnv: null, group,
    description: 'How long a signed-in person\'s session lasts.',
  }),
  publicUrl: SHARED_OPTIONS.publicUrl,
  dataDir: SHARED_OPTIONS.dataDir,
};

export type PeopleOptions = OptionValues<typeof peopleOptions>;

/** Single sign-on needs all of issuer, client id, roles and the public URL (the redirect URI is built from it). */
export function checkPeopleOptions(options: PeopleOptions, label: (key: keyof PeopleOptions & string) => string): void {
  const sso = options.oidcIssuer !== '';
  const needed = ['oidcClientId', 'oidcRoles', 'publicUrl'] as const;
  if (!sso) {
    const stray = (['oidcClientId', 'oidcClientSecret', 'oidcRoles'] as const).find((key) => options[key] !== '');
    if (stray) throw invalidOptions(peopleOptions[stray].flag, `${label(stray)} is set but ${label('oidcIssuer')} is not: single sign-on needs the issuer`);
    return;
  }
  for (const key of needed) {
    if (options[key] === '') throw invalidOptions(peopleOptions[key].flag, `${label(key)} is required with ${label('oidcIssuer')} (single sign-on)`);
  }
}
