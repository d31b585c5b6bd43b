// The template engine's coded errors (docs/errors.md): a parse error is found once, when a template is
// compiled (the plugin checks user templates at start-up and exits 2), an exec error when it renders.
// Both carry the position in Go's own `template: <name>:<line>:<col>` form.
import { TidewatchError } from '../../../core/index.js';

export interface TemplatePosition {
  readonly line: number;
  readonly column: number;
}

export class TemplateParseError extends TidewatchError {
  readonly position: TemplatePosition;
  constructor(detail: string, position: TemplatePosition, name = '') {
    super(
      'TW_ERR_TEMPLATE_PARSE',
      `template: ${name}:${position.line}: ${detail}`,
      400,
    );
    this.name = 'TemplateParseError';
    this.position = position;
  }
}

export class TemplateExecError extends TidewatchError {
  readonly position: TemplatePosition;
  /** `executing` names the {{define}}d template being run ("" for the main one), as Go's message does. */
  constructor(detail: string, position: TemplatePosition, context: string, executing = '', name = '') {
    super(
      'TW_ERR_TEMPLATE_EXEC',
      `template: ${name}:${position.line}:${position.column}: executing "${executing}" at <${context}>: ${detail}`,
      500,
    );
    this.name = 'TemplateExecError';
    this.position = position;
  }
}

/** Line (1-based) and column (0-based, in characters, as Go counts it) of an offset in the template text. */
export function positionOf(text: string, offset: number): TemplatePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart };
}
