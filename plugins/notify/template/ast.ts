// The parse tree of a template, shaped like Go's text/template/parse nodes (docs/notifications.md).

export interface ListNode {
  readonly kind: 'list';
  readonly nodes: Node[];
}

export type Node =
  | { readonly kind: 'text'; readonly pos: number; readonly text: string }
  | { readonly kind: 'action'; readonly pos: number; readonly pipe: PipeNode }
  | ControlNode
  | { readonly kind: 'template'; readonly pos: number; readonly name: string; readonly pipe: PipeNode | null }
  | { readonly kind: 'break'; readonly pos: number }
  | { readonly kind: 'continue'; readonly pos: number };

export interface ControlNode {
  readonly kind: 'if' | 'range' | 'with';
  readonly pos: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | null;
}

export interface PipeNode {
  readonly kind: 'pipe';
  readonly pos: number;
  /** Variables declared (`:=`) or assigned (`=`) by this pipeline, with `$`. */
  readonly decl: string[];
  readonly isAssign: boolean;
  readonly cmds: CommandNode[];
}

export interface CommandNode {
  readonly kind: 'command';
  readonly pos: number;
  readonly args: ArgNode[];
}

export type ArgNode =
  | { readonly kind: 'field'; readonly pos: number; readonly idents: string[] }
  | { readonly kind: 'variable'; readonly pos: number; readonly name: string; readonly idents: string[] }
  | { readonly kind: 'dot'; readonly pos: number }
  | { readonly kind: 'nil'; readonly pos: number }
  | { readonly kind: 'bool'; readonly pos: number; readonly value: boolean }
  | NumberNode
  | { readonly kind: 'string'; readonly pos: number; readonly value: string; readonly text: string }
  | { readonly kind: 'identifier'; readonly pos: number; readonly name: string }
  | { readonly kind: 'chain'; readonly pos: number; readonly node: ArgNode; readonly fields: string[] }
  | PipeNode;

export interface NumberNode {
  readonly kind: 'number';
  readonly pos: number;
  readonly text: string;
  /** A float constant (has `.`, an exponent): Go gives it the type float64, else int. */
  readonly isFloat: boolean;
  readonly value: number;
  /** A character constant such as 'a' (an int32 in Go). */
  readonly isChar: boolean;
}

/** A compiled template: the main tree and the `{{define}}`d ones. */
export interface ParsedTemplate {
  readonly source: string;
  readonly root: ListNode;
  readonly defined: ReadonlyMap<string, ListNode>;
}

/** Renders a node back to template syntax, for error messages (Go's `at <…>`). */
export function describe(node: ArgNode | CommandNode): string {
  switch (node.kind) {
    case 'field':
      return node.idents.map((i) => `.${i}`).join('');
    case 'variable':
      return node.name + node.idents.map((i) => `.${i}`).join('');
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(node.value);
    case 'number':
      return node.text;
    case 'string':
      return node.text;
    case 'identifier':
      return node.name;
    case 'chain':
      return `${describe(node.node)}${node.fields.map((f) => `.${f}`).join('')}`;
    case 'pipe':
      return `(${node.cmds.map(describe).join(' | ')})`;
    case 'command':
      return node.args.map(describe).join(' ');
  }
}
