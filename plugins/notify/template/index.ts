// Notification templates (docs/notifications.md, "Templates"): Go text/template semantics, Watchtower's
// functions and built-in templates. compileTemplate parses once (a parse error is a TemplateParseError,
// TW_ERR_TEMPLATE_PARSE); render runs it (TemplateExecError, TW_ERR_TEMPLATE_EXEC).
import type { ParsedTemplate } from './ast.js';
import type { TemplateInput } from './data.js';
import { execute } from './exec.js';
import { templateFunctions } from './functions.js';
import { parse } from './parser.js';
import { builtinTemplates } from './templates.js';

export * from './data.js';
export { TemplateExecError, TemplateParseError, type TemplatePosition } from './errors.js';
export { builtinTemplates, type BuiltinTemplateName } from './templates.js';
export { templateFunctions } from './functions.js';

export interface CompiledTemplate {
  /** The template text that was parsed (a built-in's text when a name was given). */
  readonly source: string;
  /** Renders the data (report mode) or the log entries (legacy mode); a nil value is allowed too. */
  render(data: TemplateInput | null): string;
}

/** The text of a built-in template when `nameOrText` names one, else the text itself. */
export function resolveTemplate(nameOrText: string): string {
  return Object.prototype.hasOwnProperty.call(builtinTemplates, nameOrText)
    ? (builtinTemplates[nameOrText] as string)
    : nameOrText;
}

/** Parses a template (or a built-in's name) once; throws TemplateParseError on bad syntax. */
export function compileTemplate(nameOrText: string): CompiledTemplate {
  const source = resolveTemplate(nameOrText);
  const parsed: ParsedTemplate = parse(source, (name) => Object.prototype.hasOwnProperty.call(templateFunctions, name));
  return {
    source,
    render: (data) => execute(parsed, data, templateFunctions),
  };
}

/** Parses and renders in one step (a built-in name is resolved first). */
export function renderTemplate(nameOrText: string, data: TemplateInput | null): string {
  return compileTemplate(nameOrText).render(data);
}

/**
 * Renders arbitrary values (maps, slices, numbers) rather than notification data: what the parity
 * test and template previews use.
 */
export function renderValue(nameOrText: string, value: unknown): string {
  const parsed = parse(resolveTemplate(nameOrText), (name) => Object.prototype.hasOwnProperty.call(templateFunctions, name));
  return execute(parsed, value, templateFunctions);
}
