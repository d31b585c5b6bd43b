// `WWW-Authenticate` challenges (RFC 7235) as registries send them on a 401:
//   Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"
//   Basic realm="Registry Realm"
// A header may carry several challenges; Bearer is preferred because it is what Distribution-style
// registries mean when they offer both.

export type Challenge =
  | { readonly scheme: 'none' }
  | { readonly scheme: 'basic'; readonly realm?: string }
  | { readonly scheme: 'bearer'; readonly realm: string; readonly service?: string; readonly scope?: string };

interface RawChallenge {
  scheme: string;
  params: Map<string, string>;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;
const SPACE = /[ \t]*/y;

/** Splits a header value into challenges with their auth-params (quoted strings unescaped). */
function tokenize(header: string): RawChallenge[] {
  const result: RawChallenge[] = [];
  let pos = 0;
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(header);
    if (!m) return undefined;
    pos = re.lastIndex;
    return m[0];
  };
  const skipSpace = () => match(SPACE);
  while (pos < header.length) {
    skipSpace();
    if (header[pos] === ',') {
      pos++;
      continue;
    }
    const scheme = match(TOKEN);
    if (!scheme) break;
    const current: RawChallenge = { scheme: scheme.toLowerCase(), params: new Map() };
    result.push(current);
    // auth-params: name=value pairs separated by commas, until the next bare scheme token.
    for (;;) {
      skipSpace();
      const save = pos;
      const name = match(TOKEN);
      if (!name) break;
      skipSpace();
      if (header[pos] !== '=') {
        pos = save; // a token not followed by `=` starts the next challenge
        break;
      }
      pos++;
      skipSpace();
      let value = '';
      if (header[pos] === '"') {
        pos++;
        while (pos < header.length && header[pos] !== '"') {
          if (header[pos] === '\\' && pos + 1 < header.length) pos++;
          value += header[pos];
          pos++;
        }
        pos++;
      } else {
        value = match(/[^,\s]*/y) ?? '';
      }
      current.params.set(name.toLowerCase(), value);
      skipSpace();
      if (header[pos] === ',') pos++;
    }
  }
  return result;
}

/** The challenge to answer, or undefined when the header offers nothing we speak. */
export function parseChallenge(header: string | string[] | undefined): Challenge | undefined {
  if (header === undefined) return undefined;
  const raw = tokenize(Array.isArray(header) ? header.join(', ') : header);
  const bearer = raw.find((c) => c.scheme === 'bearer' && c.params.get('realm'));
  if (bearer) {
    const service = bearer.params.get('service');
    const scope = bearer.params.get('scope');
    return {
      scheme: 'bearer',
      realm: bearer.params.get('realm') as string,
      ...(service ? { service } : {}),
      ...(scope ? { scope } : {}),
    };
  }
  const basic = raw.find((c) => c.scheme === 'basic');
  if (basic) {
    const realm = basic.params.get('realm');
    return realm === undefined ? { scheme: 'basic' } : { scheme: 'basic', realm };
  }
  return undefined;
}
