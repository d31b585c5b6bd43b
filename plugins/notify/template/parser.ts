// The parser of Go's text/template syntax into the tree of ast.ts (docs/notifications.md, "Templates").
// It follows Go's own checks: unknown functions, undefined variables and misplaced keywords are parse
// errors, so a user template is refused at start-up rather than at the first notification.
import type { ArgNode, CommandNode, ListNode, Node, NumberNode, ParsedTemplate, PipeNode } from './ast.js';
import { TemplateParseError, positionOf } from './errors.js';
import { lex, type Token } from './lexer.js';

type End = 'end' | 'else' | 'eof';

/** Tokens that can start a command (anything else where a command belongs is "unexpected"). */
const COMMAND_START = new Set<Token['kind']>(['bool', 'char', 'dot', 'field', 'ident', 'number', 'nil', 'string', 'variable', 'lparen']);

export function parse(source: string, isFunction: (name: string) => boolean): ParsedTemplate {
  return new Parser(source, isFunction).parseTemplate();
}

class Parser {
  private readonly tokens: Token[];
  private at = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  /** The line of the action being parsed (0 once it is done), for lexing errors, as Go tracks it. */
  private actionLine = 0;
  private readonly defined = new Map<string, ListNode>();

  constructor(
    private readonly source: string,
    private readonly isFunction: (name: string) => boolean,
  ) {
    this.tokens = lex(source);
  }

  parseTemplate(): ParsedTemplate {
    const [root, end] = this.itemList(true);
    if (end.kind !== 'eof') this.fail(`unexpected {{${end.kind}}}`, end.pos);
    return { source: this.source, root, defined: this.defined };
  }

  private fail(msg: string, pos: number): never {
    throw new TemplateParseError(msg, positionOf(this.source, pos));
  }

  private next(): Token {
    return this.tokens[this.at++] as Token;
  }
  private peek(): Token {
    return this.tokens[this.at] as Token;
  }
  private nextNonSpace(): Token {
    let t = this.next();
    while (t.kind === 'space') t = this.next();
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.at--;
    return t;
  }
  private expect(kind: Token['kind'], context: string): Token {
    const t = this.nextNonSpace();
    if (t.kind !== kind) this.unexpected(t, context);
    return t;
  }
  private unexpected(t: Token, context: string): never {
    if (t.kind === 'error') {
      // Go adds where the action began when a lexing error is on a later line.
      const line = positionOf(this.source, t.pos).line;
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== line) {
        extra = ` in action started at :${this.actionLine}`;
        if (t.value.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      return this.fail(t.value + extra, t.pos);
    }
    const shown = t.kind === 'eof' ? 'EOF' : t.kind === 'right' ? '"}}"' : JSON.stringify(t.value);
    return this.fail(`unexpected ${shown} in ${context}`, t.pos);
  }

  /** Nodes up to `{{end}}`, `{{else}}` or the end of the text (only at the top level). */
  private itemList(top: boolean): [ListNode, { kind: End; pos: number }] {
    const nodes: Node[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') {
        if (!top) this.fail('unexpected EOF', t.pos);
        return [{ kind: 'list', nodes }, { kind: 'eof', pos: t.pos }];
      }
      if (t.kind === 'text') {
        nodes.push({ kind: 'text', pos: t.pos, text: t.value });
        continue;
      }
      if (t.kind !== 'left') this.unexpected(t, 'input');
      this.actionLine = positionOf(this.source, t.pos).line;
      const k = this.peekNonSpace();
      if (k.kind === 'keyword' && (k.value === 'end' || k.value === 'else')) {
        if (top) this.fail(`unexpected {{${k.value}}}`, k.pos);
        this.nextNonSpace();
        if (k.value === 'end') this.expect('right', 'end');
        return [{ kind: 'list', nodes }, { kind: k.value, pos: k.pos }];
      }
      if (k.kind === 'keyword' && k.value === 'define') {
        if (!top) this.fail('unexpected {{define}}', k.pos);
        this.define();
        continue;
      }
      nodes.push(this.action(t.pos));
      this.actionLine = 0;
    }
  }

  private action(pos: number): Node {
    const t = this.peekNonSpace();
    if (t.kind === 'keyword') {
      this.nextNonSpace();
      switch (t.value) {
        case 'if':
        case 'with':
        case 'range':
          return this.control(t.value, t.pos);
        case 'template':
          return this.templateCall();
        case 'block':
          return this.block();
        case 'break':
        case 'continue':
          if (this.rangeDepth === 0) this.fail(`{{${t.value}}} outside {{range}}`, t.pos);
          this.expect('right', t.value);
          return { kind: t.value, pos: t.pos };
      }
      this.fail(`unexpected ${t.value}`, t.pos);
    }
    return { kind: 'action', pos, pipe: this.pipeline('command', 'right') };
  }

  private control(kind: 'if' | 'with' | 'range', pos: number): Node {
    const mark = this.vars.length;
    const pipe = this.pipeline(kind, 'right');
    if (kind === 'range') this.rangeDepth++;
    const [list, end] = this.itemList(false);
    if (kind === 'range') this.rangeDepth--;
    let elseList: ListNode | null = null;
    if (end.kind === 'else') {
      const k = this.peekNonSpace();
      if ((kind === 'if' || kind === 'with') && k.kind === 'keyword' && k.value === kind) {
        // `{{else if …}}` (and Go 1.23's `{{else with …}}`) nests in the else branch, sharing the {{end}}.
        this.nextNonSpace();
        elseList = { kind: 'list', nodes: [this.control(kind, k.pos)] };
      } else {
        this.expect('right', 'else');
        const [list2, end2] = this.itemList(false);
        if (end2.kind === 'else') this.fail('expected end; found {{else}}', end2.pos);
        elseList = list2;
      }
    }
    this.vars.length = mark;
    return { kind, pos, pipe, list, elseList };
  }

  private define(): void {
    this.nextNonSpace();
    const name = this.expect('string', 'define clause');
    this.expect('right', 'define clause');
    const saved = this.vars;
    this.vars = ['$'];
    const [list, end] = this.itemList(false);
    if (end.kind !== 'end') this.fail('unexpected {{else}} in define', end.pos);
    this.vars = saved;
    this.defined.set(name.value, list);
  }

  /** `{{block "n" pipeline}}…{{end}}`: defines n and calls it right there. */
  private block(): Node {
    const name = this.expect('string', 'block clause');
    const pipe = this.pipeline('block clause', 'right');
    const saved = this.vars;
    this.vars = ['$'];
    const [list, end] = this.itemList(false);
    if (end.kind !== 'end') this.fail('unexpected {{else}} in block clause', end.pos);
    this.vars = saved;
    this.defined.set(name.value, list);
    return { kind: 'template', pos: name.pos, name: name.value, pipe };
  }

  /** `{{template "n"}}` or `{{template "n" pipeline}}`; Go places the node at the name. */
  private templateCall(): Node {
    const name = this.expect('string', 'template clause');
    const t = this.nextNonSpace();
    if (t.kind === 'right') return { kind: 'template', pos: name.pos, name: name.value, pipe: null };
    this.at--;
    return { kind: 'template', pos: name.pos, name: name.value, pipe: this.pipeline('template clause', 'right') };
  }

  private pipeline(context: string, end: 'right' | 'rparen'): PipeNode {
    const start = this.peekNonSpace();
    const decl: string[] = [];
    let isAssign = false;
    // Declarations, as Go reads them: `$x :=`, `$x =`, and in range `$i, $e :=`.
    for (;;) {
      const v = this.peekNonSpace();
      if (v.kind !== 'variable') break;
      const save = this.at;
      this.nextNonSpace();
      const next = this.peekNonSpace();
      if (next.kind === 'declare' || next.kind === 'assign') {
        isAssign = next.kind === 'assign';
        this.nextNonSpace();
        decl.push(v.value);
        this.vars.push(v.value);
        break;
      }
      if (next.kind === 'comma') {
        this.nextNonSpace();
        decl.push(v.value);
        this.vars.push(v.value);
        if (context === 'range' && decl.length < 2) {
          const after = this.peekNonSpace();
          if (after.kind === 'variable' || after.kind === 'right' || after.kind === 'rparen') continue;
          this.fail('range can only initialize variables', after.pos);
        }
        this.fail(`too many declarations in ${context}`, next.pos);
      }
      this.at = save;
      break;
    }
    const cmds: CommandNode[] = [];
    for (;;) {
      const t = this.nextNonSpace();
      if (t.kind === end) {
        if (cmds.length === 0) this.fail(`missing value for ${context}`, t.pos);
        cmds.forEach((c, i) => {
          const first = c.args[0] as ArgNode;
          if (i > 0 && ['bool', 'dot', 'nil', 'number', 'string'].includes(first.kind)) {
            this.fail(`non executable command in pipeline stage ${i + 1}`, c.pos);
          }
        });
        return { kind: 'pipe', pos: start.pos, decl, isAssign, cmds };
      }
      if (!COMMAND_START.has(t.kind)) this.unexpected(t, context);
      this.at--;
      cmds.push(this.command());
    }
  }

  private command(): CommandNode {
    const pos = this.peekNonSpace().pos;
    const args: ArgNode[] = [];
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== null) args.push(operand);
      const t = this.next();
      if (t.kind === 'space') continue;
      if (t.kind === 'right' || t.kind === 'rparen') this.at--;
      else if (t.kind !== 'pipe') this.unexpected(t, 'operand');
      break;
    }
    if (args.length === 0) this.fail('empty command', pos);
    return { kind: 'command', pos, args };
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (node === null) return null;
    if (this.peek().kind !== 'field') return node;
    const fields: string[] = [];
    // Go places a chained node at its first chained field (error positions count from there).
    const pos = this.peek().pos;
    while (this.peek().kind === 'field') fields.push(this.next().value.slice(1));
    switch (node.kind) {
      case 'field':
        return { ...node, pos, idents: [...node.idents, ...fields] };
      case 'variable':
        return { ...node, pos, idents: [...node.idents, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return this.fail(`unexpected . after term ${JSON.stringify(this.source.slice(node.pos, pos))}`, node.pos);
      default:
        return { kind: 'chain', pos, node, fields };
    }
  }

  private lookupVar(name: string, pos: number): void {
    if (!this.vars.includes(name)) this.fail(`undefined variable "${name}"`, pos);
  }

  private term(): ArgNode | null {
    const t = this.nextNonSpace();
    switch (t.kind) {
      case 'ident':
        if (!this.isFunction(t.value)) this.fail(`function "${t.value}" not defined`, t.pos);
        return { kind: 'identifier', pos: t.pos, name: t.value };
      case 'dot':
        return { kind: 'dot', pos: t.pos };
      case 'nil':
        return { kind: 'nil', pos: t.pos };
      case 'variable': {
        this.lookupVar(t.value, t.pos);
        return { kind: 'variable', pos: t.pos, name: t.value, idents: [] };
      }
      case 'field':
        return { kind: 'field', pos: t.pos, idents: [t.value.slice(1)] };
      case 'bool':
        return { kind: 'bool', pos: t.pos, value: t.value === 'true' };
      case 'char':
      case 'number':
        return this.number(t);
      case 'string':
        return { kind: 'string', pos: t.pos, value: t.value, text: this.source.slice(t.pos, this.peek().pos) };
      case 'lparen': {
        const pipe = this.pipeline('parenthesized pipeline', 'rparen');
        return pipe;
      }
    }
    this.at--;
    return null;
  }

  private number(t: Token): NumberNode {
    if (t.kind === 'char') {
      return { kind: 'number', pos: t.pos, text: this.source.slice(t.pos, this.peek().pos), isFloat: false, value: t.value.codePointAt(0) ?? 0, isChar: true };
    }
    const text = t.value.replace(/_/g, '');
    if (text.endsWith('i')) this.fail(`complex numbers are not supported: ${t.value}`, t.pos);
    const sign = text.startsWith('-') ? -1 : 1;
    const body = text.replace(/^[+-]/, '');
    let value: number;
    let isFloat = false;
    if (/^0[xX]/.test(body) && /[.pP]/.test(body)) {
      this.fail(`hex floats are not supported: ${t.value}`, t.pos);
    }
    if (/^0[xX]/.test(body)) value = parseInt(body.slice(2), 16);
    else if (/^0[bB]/.test(body)) value = parseInt(body.slice(2), 2);
    else if (/^0[oO]/.test(body)) value = parseInt(body.slice(2), 8);
    else if (/^0[0-7]+$/.test(body)) value = parseInt(body, 8);
    else if (/[.eE]/.test(body)) {
      value = Number(body);
      isFloat = true;
    } else value = Number(body);
    if (Number.isNaN(value)) this.fail(`illegal number syntax: "${t.value}"`, t.pos);
    return { kind: 'number', pos: t.pos, text: t.value, isFloat, value: sign * value, isChar: false };
  }
}
