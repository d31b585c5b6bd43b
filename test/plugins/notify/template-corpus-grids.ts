// Generated parts of the template corpus (template-corpus.ts): fixed pseudo-random samples, the same on
// every run, of printf formats, predefined functions over values of every kind, and template structures
// (nested if/else if/range/with/variables/comments with every trimming), all run against the raw data.

/** A deterministic sampler (a linear congruential generator), so the corpus never changes by itself. */
function sampler(seed: number): <T>(list: readonly T[]) => T {
  let state = seed;
  return <T>(list: readonly T[]): T => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return list[state % list.length] as T;
  };
}

/**
 * printf over a grid of flags, widths, precisions, verbs and values (a fixed pseudo-random sample, the
 * same on every run), in groups of 8 per case.
 */
export function printfGrid(): [string, string][] {
  const flags = ['', '-', '+', '#', ' ', '0', '-0', '+0', ' 0'];
  const widths = ['', '1', '5', '12'];
  const precs = ['', '.0', '.1', '.3', '.10'];
  const verbs = ['v', 's', 'd', 'q', 'x', 'X', 'f', 'e', 'g', 'G', 'E', 't', 'c', 'o', 'b', 'T', 'U'];
  const values = ['.a', '.neg', '.f', '.s', '.html', '.t', '.l', '.m', '.zero', '.big', '.ff3', '.ff5', '.n', '1.0', '0', '-7', '"é"', '.ff1'];
  const pick = sampler(11);
  const cases: [string, string][] = [];
  for (let i = 0; i < 40; i++) {
    const parts: string[] = [];
    for (let j = 0; j < 8; j++) {
      const flag = pick(flags);
      const verb = pick(verbs);
      // %#v with a precision is Go syntax cut short; not worth imitating.
      const spec = `%${verb === 'v' ? flag.replace('#', '') : flag}${pick(widths)}${pick(precs)}${verb}`;
      parts.push(`{{printf "[${spec}]" ${pick(values)}}}`);
    }
    cases.push([`printf-grid-${i}`, parts.join('')]);
  }
  return cases;
}

/** The predefined functions over pairs of values of every kind (a fixed sample), errors included. */
export function functionGrid(): [string, string][] {
  const values = ['.a', '.neg', '.f', '.s', '.empty', '.t', '.l', '.m', '.zero', '.n', '.nope', '1.0', '0', '-7', '"hi"', '""', 'true', 'nil', "'a'", '.em', '.e'];
  const binary = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or', 'print', 'index', 'slice'];
  const unary = ['len', 'not', 'html', 'urlquery', 'js', 'print', 'println'];
  const pick = sampler(5);
  const cases: [string, string][] = [];
  for (let i = 0; i < 120; i++) {
    const fn = i % 4 === 0 ? pick(unary) : pick(binary);
    const call = unary.includes(fn) && i % 4 === 0 ? `${fn} ${pick(values)}` : `${fn} ${pick(values)} ${pick(values)}`;
    cases.push([`func-grid-${i}: ${call}`, `{{${call}}}`]);
  }
  return cases;
}


/** Random template structures from a small grammar: every control structure, trimming and comment form. */
export function structureGrid(): [string, string][] {
  const pick = sampler(17);
  const int = (n: number) => pick([...Array(n).keys()]);
  const ws = () => pick(['', ' ', '\n', '  \n\t', '\n\n']);
  const open = () => pick(['{{', '{{- ', '{{ ']);
  const close = () => pick(['}}', ' -}}', ' }}']);
  const lists = ['.l', '.m', '.e', '.nope', '.nested.list', '.n', '.em'];
  const expr = (depth: number): string => {
    if (depth > 2) return pick(['.a', '.s', '$', '.', '.nope', '"q"', '3', '$x']);
    const sub = () => expr(depth + 1);
    return pick([
      '.a', '.s', '.empty', '.l', '.m', '.n', '.t', '.zero', '.nope', '.nested.list', '$x', '$', '.', '"str"', '42', '1.5', 'true',
      // nil alone is not a command (an error); as an argument it is Go's zero value.
      depth > 0 ? 'nil' : '.nope',
      `(len ${pick(['.s', '.l', '.m'])})`, `(index .l ${int(3)})`, `(eq .a ${pick(['1', '2'])})`, `(not ${sub()})`,
      `(and ${sub()} ${sub()})`, `(or ${sub()} ${sub()})`, `(print ${sub()})`, `(printf "%v-%d" ${sub()} .a)`, `${sub()} | print`,
    ]);
  };
  const branch = (depth: number) => (int(2) ? `${open()}else${close()}${body(depth + 1)}` : '');
  const body = (depth: number): string => {
    let out = '';
    for (let i = 0, n = 1 + int(3); i < n; i++) {
      out += ws() + pick(['text', 'a b', '', 'x\n']);
      switch (depth > 2 ? int(3) : int(9)) {
        case 0:
          out += `${open()}${expr(0)}${close()}`;
          break;
        case 1:
          out += `${open()}$x = ${expr(1)}${close()}`;
          break;
        case 2:
          out += `${open()}/* c */${pick(['}}', ' -}}'])}`;
          break;
        case 3:
          out += `${open()}if ${expr(0)}${close()}${body(depth + 1)}${branch(depth)}${open()}end${close()}`;
          break;
        case 4:
          out += `${open()}if ${expr(0)}${close()}${body(depth + 1)}${open()}else if ${expr(0)}${close()}${body(depth + 1)}${open()}end${close()}`;
          break;
        case 5:
          out += `${open()}range ${pick(['$i, $e := ', '$e := ', ''])}${pick(lists)}${close()}${body(depth + 1)}${branch(depth)}${open()}end${close()}`;
          break;
        case 6:
          out += `${open()}with ${expr(0)}${close()}${body(depth + 1)}${branch(depth)}${open()}end${close()}`;
          break;
        case 7:
          out += `${open()}$y := ${expr(1)}${close()}${open()}$y${close()}`;
          break;
        default:
          out += `${open()}${pick([`len ${pick(['.s', '.l', '.m'])}`, `print ${expr(1)}`, `printf "%q" ${expr(1)}`, `ToUpper ${pick(['.s', '"x"'])}`, `html ${expr(1)}`, `ToJSON ${expr(1)}`])}${close()}`;
      }
      out += ws();
    }
    return out;
  };
  const cases: [string, string][] = [];
  for (let i = 0; i < 80; i++) cases.push([`structure-grid-${i}`, `{{$x := .s}}${body(0)}`]);
  return cases;
}
