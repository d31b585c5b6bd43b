// The lexer of Go's text/template syntax (docs/notifications.md, "Templates"): text, `{{ }}` actions with
// `{{- ` / ` -}}` trimming, comments, and the tokens inside an action.

export type TokenKind =
  | 'text'
  | 'left'
  | 'right'
  | 'space'
  | 'ident'
  | 'keyword'
  | 'field'
  | 'variable'
  | 'string'
  | 'char'
  | 'number'
  | 'bool'
  | 'nil'
  | 'dot'
  | 'pipe'
  | 'lparen'
  | 'rparen'
  | 'declare'
  | 'assign'
  | 'comma'
  | 'other'
  | 'error'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The source text, or for strings and chars the decoded value. */
  readonly value: string;
  readonly pos: number;
}

const KEYWORDS = new Set(['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'template', 'with']);
const SPACE = new Set([' ', '\t', '\r', '\n']);
const isAlnum = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{Nd}_]/u.test(c);

/** A lexing failure, turned into an `error` token where it happened (see lex). */
class LexError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/**
 * The tokens of a template. A lexing error becomes an `error` token at that point, after the tokens
 * before it: Go's parser reads tokens as its lexer makes them, so a parse error earlier in the text
 * is the one reported.
 */
export function lex(text: string): Token[] {
  const tokens: Token[] = [];
  try {
    lexInto(text, tokens);
  } catch (err) {
    if (!(err instanceof LexError)) throw err;
    tokens.push({ kind: 'error', value: err.message, pos: err.at });
  }
  tokens.push({ kind: 'eof', value: '', pos: text.length });
  return tokens;
}

function lexInto(text: string, tokens: Token[]): void {
  const fail = (msg: string, at: number): never => {
    throw new LexError(msg, at);
  };
  let pos = 0;
  let trimNext = false;
  while (pos <= text.length) {
    let open = text.indexOf('{{', pos);
    if (open < 0) open = text.length;
    let chunk = text.slice(pos, open);
    const leftTrim = open < text.length && text[open + 2] === '-' && SPACE.has(text[open + 3] ?? '');
    if (trimNext) chunk = chunk.replace(/^[ \t\r\n]+/, '');
    if (leftTrim) chunk = chunk.replace(/[ \t\r\n]+$/, '');
    trimNext = false;
    if (chunk.length > 0) tokens.push({ kind: 'text', value: chunk, pos });
    if (open >= text.length) break;
    pos = open + 2 + (leftTrim ? 2 : 0);
    // A comment takes the whole action, `{{/* … */}}` or `{{- /* … */ -}}`, and yields no token.
    if (text.startsWith('/*', pos)) {
      const close = text.indexOf('*/', pos + 2);
      if (close < 0) fail('unclosed comment', pos);
      const m = /^(?:[ \t\r\n](-))?\}\}/.exec(text.slice(close + 2));
      if (!m) return fail('comment ends before closing delimiter', pos);
      trimNext = m[1] !== undefined;
      pos = close + 2 + m[0].length;
      continue;
    }
    tokens.push({ kind: 'left', value: '{{', pos: open });
    pos = lexAction(text, pos, tokens, fail, (trim) => (trimNext = trim));
  }
}

function lexAction(
  text: string,
  start: number,
  tokens: Token[],
  fail: (msg: string, at: number) => never,
  setTrim: (trim: boolean) => void,
): number {
  let pos = start;
  let parens = 0;
  const push = (kind: TokenKind, value: string, at: number) => tokens.push({ kind, value, pos: at });
  for (;;) {
    if (pos >= text.length) fail('unclosed action', text.length);
    const c = text[pos] as string;
    // ` -}}` closes with trimming; `}}` closes.
    if (SPACE.has(c)) {
      const m = /^[ \t\r\n]+/.exec(text.slice(pos)) as RegExpExecArray;
      const after = pos + m[0].length;
      if (text.startsWith('-}}', after)) {
        if (parens > 0) fail('unclosed left paren', after);
        push('right', '}}', after + 1);
        setTrim(true);
        return after + 3;
      }
      push('space', m[0], pos);
      pos = after;
      continue;
    }
    if (text.startsWith('}}', pos)) {
      if (parens > 0) fail('unclosed left paren', pos);
      push('right', '}}', pos);
      setTrim(false);
      return pos + 2;
    }
    if (c === '|') {
      push('pipe', c, pos++);
    } else if (c === '(') {
      parens++;
      push('lparen', c, pos++);
    } else if (c === ')') {
      parens--;
      push('rparen', c, pos++);
    } else if (c === ',') {
      push('comma', c, pos++);
    } else if (text.startsWith(':=', pos)) {
      push('declare', ':=', pos);
      pos += 2;
    } else if (c === '=') {
      push('assign', c, pos++);
    } else if (c === '"') {
      pos = lexQuoted(text, pos, push, fail);
    } else if (c === '`') {
      const close = text.indexOf('`', pos + 1);
      if (close < 0) fail('unterminated raw quoted string', pos);
      push('string', text.slice(pos + 1, close), pos);
      pos = close + 1;
    } else if (c === "'") {
      pos = lexChar(text, pos, push, fail);
    } else if (c === '$') {
      let end = pos + 1;
      while (isAlnum(text[end])) end++;
      push('variable', text.slice(pos, end), pos);
      pos = end;
    } else if (c === '.' && !/[0-9]/.test(text[pos + 1] ?? '')) {
      let end = pos + 1;
      while (isAlnum(text[end])) end++;
      push(end === pos + 1 ? 'dot' : 'field', text.slice(pos, end), pos);
      pos = end;
    } else if (/[0-9+\-.]/.test(c)) {
      const m = /^[+-]?(0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?([pP][+-]?[0-9_]+)?|0[bB][01_]+|0[oO][0-7_]+|[0-9_]*\.?[0-9_]*([eE][+-]?[0-9_]+)?)i?/.exec(
        text.slice(pos),
      );
      const num = m ? m[0] : '';
      if (num === '' || num === '+' || num === '-' || isAlnum(text[pos + num.length])) {
        fail(`bad number syntax: "${text.slice(pos, pos + Math.max(num.length, 1) + 1)}"`, pos);
      }
      push('number', num, pos);
      pos += num.length;
    } else if (isAlnum(c)) {
      let end = pos;
      while (isAlnum(text[end])) end++;
      const word = text.slice(pos, end);
      if (KEYWORDS.has(word)) push('keyword', word, pos);
      else if (word === 'true' || word === 'false') push('bool', word, pos);
      else if (word === 'nil') push('nil', word, pos);
      else push('ident', word, pos);
      pos = end;
    } else if (/[\x21-\x7e]/.test(c)) {
      // Other printable ASCII is a token of its own; the parser says where it does not belong.
      push('other', c, pos++);
    } else {
      const cp = text.codePointAt(pos) as number;
      fail(`unrecognized character in action: U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${String.fromCodePoint(cp)}'`, pos);
    }
  }
}

const ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"',
};

/** Decodes one Go escape at text[pos] (just after the backslash); returns the value and the next index. */
function unescape(text: string, pos: number, fail: (msg: string, at: number) => never): [string, number] {
  const c = text[pos] ?? '';
  if (c in ESCAPES) return [ESCAPES[c] as string, pos + 1];
  const hex = (n: number) => {
    const digits = text.slice(pos + 1, pos + 1 + n);
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) fail('invalid syntax', pos);
    return parseInt(digits, 16);
  };
  if (c === 'x') return [Buffer.from([hex(2)]).toString('latin1'), pos + 3];
  if (c === 'u') return [String.fromCodePoint(hex(4)), pos + 5];
  if (c === 'U') return [String.fromCodePoint(hex(8)), pos + 9];
  if (/[0-7]/.test(c)) return [String.fromCharCode(parseInt(text.slice(pos, pos + 3), 8)), pos + 3];
  return fail('invalid syntax', pos);
}

function lexQuoted(
  text: string,
  start: number,
  push: (kind: TokenKind, value: string, at: number) => void,
  fail: (msg: string, at: number) => never,
): number {
  let pos = start + 1;
  let value = '';
  for (;;) {
    const c = text[pos];
    if (c === undefined || c === '\n') fail('unterminated quoted string', start);
    if (c === '"') break;
    if (c === '\\') {
      const [v, next] = unescape(text, pos + 1, fail);
      value += v;
      pos = next;
    } else {
      value += c;
      pos++;
    }
  }
  push('string', value, start);
  return pos + 1;
}

function lexChar(
  text: string,
  start: number,
  push: (kind: TokenKind, value: string, at: number) => void,
  fail: (msg: string, at: number) => never,
): number {
  let pos = start + 1;
  let value: string;
  if (text[pos] === '\\') [value, pos] = unescape(text, pos + 1, fail);
  else {
    const cp = text.codePointAt(pos);
    if (cp === undefined || text[pos] === "'" || text[pos] === '\n') return fail('unterminated character constant', start);
    value = String.fromCodePoint(cp);
    pos += value.length;
  }
  if (text[pos] !== "'") fail('unterminated character constant', start);
  push('char', value, start);
  return pos + 1;
}
