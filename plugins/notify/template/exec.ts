// The executor of a parsed template (docs/notifications.md, "Templates"): walks the tree with Go's rules
// for dot, variables, pipelines, field and method lookup, range/with/if, and prints values like Go.
import { describe, type ArgNode, type CommandNode, type ListNode, type Node, type ParsedTemplate, type PipeNode } from './ast.js';
import { FuncError, type ParamType, type TemplateFunction } from './builtins.js';
import { TemplateExecError, positionOf } from './errors.js';
import { formatValue } from './fmt.js';
import { GoFloat, GoInt, GoStruct, MISSING, TypedNil, kindOf, mapEntries, methodOf, numberOf, structFields, truth, typeName } from './values.js';

const NONE: unique symbol = Symbol('no final value');
const MAX_DEPTH = 1000;
type Final = unknown;

class BreakSignal {}
class ContinueSignal {}

interface Variable {
  name: string;
  value: unknown;
}

/** The first word of a pipeline's last command: where Go reports errors about the whole pipeline. */
const lastWord = (pipe: PipeNode): ArgNode => (pipe.cmds[pipe.cmds.length - 1] as CommandNode).args[0] as ArgNode;

/** Go's printing of a pipeline's value: the invalid value (and a nil interface) is `<no value>`. */
export function printValue(v: unknown): string {
  if (v === MISSING || v === null || v === undefined) return '<no value>';
  if (v instanceof TypedNil) return '<nil>';
  return formatValue(v);
}

export function execute(
  tpl: ParsedTemplate,
  data: unknown,
  functions: Readonly<Record<string, TemplateFunction>>,
): string {
  return new Executor(tpl, functions).run(tpl.root, data);
}

class Executor {
  private vars: Variable[] = [];
  private out: string[] = [];
  private depth = 0;
  /** The {{define}}d template being run, "" for the main one. */
  private executing = '';

  constructor(
    private readonly tpl: ParsedTemplate,
    private readonly functions: Readonly<Record<string, TemplateFunction>>,
  ) {}

  run(root: ListNode, data: unknown): string {
    this.vars = [{ name: '$', value: data }];
    this.walkList(root, data);
    return this.out.join('');
  }

  private fail(node: ArgNode | CommandNode | { pos: number }, detail: string, context?: string): never {
    const where = context ?? ('kind' in node && node.kind !== 'command' ? describe(node as ArgNode) : '');
    throw new TemplateExecError(detail, positionOf(this.tpl.source, node.pos), where, this.executing);
  }

  private walkList(list: ListNode, dot: unknown): void {
    for (const node of list.nodes) this.walk(node, dot);
  }

  private walk(node: Node, dot: unknown): void {
    switch (node.kind) {
      case 'text':
        this.out.push(node.text);
        return;
      case 'action': {
        const v = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.out.push(printValue(v));
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const v = this.evalPipeline(dot, node.pipe);
        if (truth(v)) this.walkList(node.list, node.kind === 'with' ? v : dot);
        else if (node.elseList) this.walkList(node.elseList, dot);
        this.vars.length = mark;
        return;
      }
      case 'range':
        this.walkRange(node.pipe, node.list, node.elseList, dot);
        return;
      case 'break':
        throw new BreakSignal();
      case 'continue':
        throw new ContinueSignal();
      case 'template': {
        const context = `{{template ${JSON.stringify(node.name)}${node.pipe ? ` ${node.pipe.cmds.map(describe).join(' | ')}` : ''}}}`;
        const list = this.tpl.defined.get(node.name);
        if (!list) this.fail(node, `template ${JSON.stringify(node.name)} not defined`, context);
        // Go allows 100000 nested calls; a JavaScript stack holds fewer, so recursion stops sooner here.
        if (++this.depth > MAX_DEPTH) this.fail(node, `exceeded maximum template depth (${MAX_DEPTH})`, context);
        const newDot = node.pipe ? this.evalPipeline(dot, node.pipe) : null;
        const saved = { vars: this.vars, executing: this.executing };
        this.vars = [{ name: '$', value: newDot }];
        this.executing = node.name;
        this.walkList(list, newDot);
        this.vars = saved.vars;
        this.executing = saved.executing;
        this.depth--;
        return;
      }
    }
  }

  private walkRange(pipe: PipeNode, list: ListNode, elseList: ListNode | null, dot: unknown): void {
    const mark = this.vars.length;
    const value = this.evalPipeline(dot, { ...pipe, decl: [] });
    const items: [unknown, unknown][] = [];
    switch (kindOf(value)) {
      case 'slice':
        (value as unknown[]).forEach((e, i) => items.push([i, e]));
        break;
      case 'map':
        for (const [k, e] of mapEntries(value)) items.push([k, e]);
        break;
      case 'int': {
        // Go 1.22 and later (Watchtower's toolchain) count: {{range 3}} is 0, 1, 2.
        const context = pipe.cmds.map(describe).join(' | ');
        if (pipe.decl.length > 1) this.fail(lastWord(pipe), `can't use ${printValue(value)} to iterate over more than one variable`, context);
        for (let i = 0; i < numberOf(value); i++) items.push([i, i]);
        break;
      }
      case 'invalid':
      case 'nil':
        break;
      default:
        // Go places the error at the last node it evaluated: the last command's first word.
        this.fail(lastWord(pipe), `range can't iterate over ${printValue(value)}`, pipe.cmds.map(describe).join(' | '));
    }
    for (const [key, elem] of items) {
      const iterMark = this.vars.length;
      if (pipe.decl.length === 1) this.bind(pipe.decl[0] as string, elem, pipe.isAssign, pipe);
      if (pipe.decl.length === 2) {
        this.bind(pipe.decl[0] as string, key, pipe.isAssign, pipe);
        this.bind(pipe.decl[1] as string, elem, pipe.isAssign, pipe);
      }
      try {
        this.walkList(list, elem);
      } catch (signal) {
        if (signal instanceof BreakSignal) {
          this.vars.length = iterMark;
          break;
        }
        if (!(signal instanceof ContinueSignal)) throw signal;
      }
      this.vars.length = iterMark;
    }
    if (items.length === 0 && elseList) this.walkList(elseList, dot);
    this.vars.length = mark;
  }

  /** Declares or assigns a variable; an error names the pipeline's last command, as Go's does. */
  private bind(name: string, value: unknown, assign: boolean, pipe: PipeNode): void {
    if (!assign) {
      this.vars.push({ name, value });
      return;
    }
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable;
      if (v.name === name) {
        v.value = value;
        return;
      }
    }
    this.fail(lastWord(pipe), `undefined variable: ${name}`);
  }

  private lookup(name: string, node: ArgNode): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable;
      if (v.name === name) return v.value;
    }
    return this.fail(node, `undefined variable: ${name}`);
  }

  private evalPipeline(dot: unknown, pipe: PipeNode): unknown {
    let value: unknown = NONE;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // A nil interface{} is "no value" once it leaves a command, as in Go.
      if (value === null || value === undefined) value = MISSING;
    }
    for (const name of pipe.decl) this.bind(name, value, pipe.isAssign, pipe);
    return value;
  }

  private evalCommand(dot: unknown, cmd: CommandNode, final: Final): unknown {
    const first = cmd.args[0] as ArgNode;
    switch (first.kind) {
      case 'field':
        return this.evalFieldChain(dot, dot, first, first.idents, cmd.args, final);
      case 'chain': {
        const receiver = this.evalArg(dot, first.node);
        return this.evalFieldChain(dot, receiver, first, first.fields, cmd.args, final);
      }
      case 'identifier':
        return this.evalFunction(dot, first, cmd, final);
      case 'variable': {
        const value = this.lookup(first.name, first);
        if (first.idents.length === 0) {
          if (cmd.args.length > 1 || final !== NONE) this.fail(first, `can't give argument to non-function ${first.name}`);
          return value;
        }
        return this.evalFieldChain(dot, value, first, first.idents, cmd.args, final);
      }
      case 'pipe':
        if (cmd.args.length > 1 || final !== NONE) this.fail(first, `can't give argument to non-function ${describe(first)}`);
        return this.evalPipeline(dot, first);
      case 'nil':
        this.fail(first, 'nil is not a command');
    }
    if (cmd.args.length > 1 || final !== NONE) this.fail(first, `can't give argument to non-function ${describe(first)}`);
    return this.evalArg(dot, first);
  }

  private evalArg(dot: unknown, node: ArgNode): unknown {
    switch (node.kind) {
      case 'dot':
        return dot;
      case 'nil':
        // The constant nil is Go's zero reflect.Value, as a missing key is.
        return MISSING;
      case 'bool':
        return node.value;
      case 'number':
        if (node.isFloat) return Number.isInteger(node.value) ? new GoFloat(node.value) : node.value;
        return new GoInt(node.value);
      case 'string':
        return node.value;
      case 'field':
        return this.evalFieldChain(dot, dot, node, node.idents, [node], NONE);
      case 'variable': {
        const value = this.lookup(node.name, node);
        return node.idents.length === 0 ? value : this.evalFieldChain(dot, value, node, node.idents, [node], NONE);
      }
      case 'chain': {
        const receiver = this.evalArg(dot, node.node);
        return this.evalFieldChain(dot, receiver, node, node.fields, [node], NONE);
      }
      case 'pipe':
        return this.evalPipeline(dot, node);
      case 'identifier':
        return this.evalFunction(dot, node, { kind: 'command', pos: node.pos, args: [node] }, NONE);
    }
  }

  private evalFieldChain(
    dot: unknown,
    receiver: unknown,
    node: ArgNode,
    idents: string[],
    args: ArgNode[],
    final: Final,
  ): unknown {
    let r = receiver;
    for (let i = 0; i < idents.length - 1; i++) r = this.evalField(dot, idents[i] as string, node, [node], NONE, r);
    return this.evalField(dot, idents[idents.length - 1] as string, node, args, final, r);
  }

  private evalField(dot: unknown, name: string, node: ArgNode, args: ArgNode[], final: Final, receiver: unknown): unknown {
    if (receiver === MISSING) return MISSING;
    const method = methodOf(receiver, name);
    if (method) {
      const given = args.slice(1).map((a) => this.evalArg(dot, a));
      if (final !== NONE) given.push(final);
      if (given.length !== method.length) {
        this.fail(node, `wrong number of args for ${name}: want ${method.length} got ${given.length}`);
      }
      return method(...given.map((v) => (v === MISSING ? null : v)));
    }
    const hasArgs = args.length > 1 || final !== NONE;
    const kind = kindOf(receiver);
    if (kind === 'nil') {
      const type = receiver instanceof TypedNil ? receiver.goType : 'interface {}';
      this.fail(node, `nil pointer evaluating ${type}.${name}`);
    }
    if (kind === 'struct') {
      const field = structFields(receiver as object, true).find(([k]) => k === name);
      if (field) {
        if (hasArgs) this.fail(node, `${name} has arguments but cannot be invoked as function`);
        const interfaceType = (receiver as GoStruct & { constructor: typeof GoStruct }).constructor.interfaceFields[name];
        return field[1] ?? (interfaceType ? new TypedNil(interfaceType) : null);
      }
    }
    if (kind === 'map') {
      if (hasArgs) this.fail(node, `${name} is not a method but has arguments`);
      const m = receiver as Record<string, unknown> | Map<string, unknown>;
      if (m instanceof Map) return m.has(name) ? (m.get(name) ?? null) : MISSING;
      return Object.prototype.hasOwnProperty.call(m, name) ? (m[name] ?? null) : MISSING;
    }
    return this.fail(node, `can't evaluate field ${name} in type ${typeName(receiver)}`);
  }

  private convert(value: unknown, type: ParamType, node: ArgNode | CommandNode): unknown {
    switch (type) {
      case 'value':
        return value;
      case 'any':
        return value === MISSING || value instanceof TypedNil ? null : value;
      case 'string':
        if (node.kind === 'nil') this.fail(node, 'cannot assign nil to string');
        if (value === MISSING) this.fail(node, 'invalid value; expected string');
        if (typeof value !== 'string') this.fail(node, `wrong type for value; expected string; got ${typeName(value)}`);
        return value;
      case 'report':
        if (value === MISSING || value === null || value instanceof TypedNil) return null;
        if (kindOf(value) !== 'struct' || typeName(value) !== '*session.report') {
          this.fail(node, `wrong type for value; expected types.Report; got ${typeName(value)}`);
        }
        return value;
    }
  }

  private evalFunction(dot: unknown, ident: ArgNode & { kind: 'identifier' }, cmd: CommandNode, final: Final): unknown {
    const name = ident.name;
    const fn = this.functions[name];
    if (!fn) return this.fail(ident, `"${name}" is not a defined function`);
    const argNodes = cmd.args.slice(1);
    const count = argNodes.length + (final !== NONE ? 1 : 0);
    const fixed = fn.params.length;
    if (fn.variadic ? count < fixed : count !== fixed) {
      this.fail(ident, `wrong number of args for ${name}: want ${fn.variadic ? 'at least ' : ''}${fixed} got ${count}`, describe(cmd));
    }
    const typeAt = (i: number): ParamType => fn.params[i] ?? fn.variadic ?? 'any';
    if (name === 'and' || name === 'or') {
      let v: unknown = MISSING;
      for (const a of argNodes) {
        v = this.evalArg(dot, a);
        if (truth(v) === (name === 'or')) return v;
      }
      return final !== NONE ? final : v;
    }
    const args = argNodes.map((a, i) => this.convert(this.evalArg(dot, a), typeAt(i), a));
    if (final !== NONE) args.push(this.convert(final, typeAt(args.length), cmd));
    try {
      return fn.call(...args);
    } catch (err) {
      if (err instanceof FuncError) this.fail(ident, `error calling ${name}: ${err.message}`, describe(cmd));
      throw err;
    }
  }
}
