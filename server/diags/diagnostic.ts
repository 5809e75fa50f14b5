// Diagnostics: the one way the engine reports a user-facing problem.
//
// Every problem with a user's input (syntax, static checks, evaluation, provider answers) is a Diagnostic,
// returned next to a (possibly placeholder) value; exceptions are reserved for bugs. Positions follow HCL:
// lines and columns are 1-based, columns count characters (code points), `byte` is a 0-based UTF-8 offset.
// The sibling render.ts prints diagnostics exactly as Terraform's CLI does; server/lsp converts them to LSP.

export interface Pos {
  line: number;
  column: number;
  byte: number;
}

export interface Range {
  filename: string;
  start: Pos;
  end: Pos;
}

export type Severity = 'error' | 'warning';

/** One step of the expression-values section ("var.x is a string"), as Terraform prints under a diagnostic. */
export interface ExpressionValue {
  traversal: string;
  statement: string;
}

export interface Diagnostic {
  severity: Severity;
  summary: string;
  detail?: string;
  /** The exact range the problem concerns (underlined in the snippet). */
  subject?: Range;
  /** A wider range for context (for example the whole expression); the snippet shows it. */
  context?: Range;
  /** Values of the references in the failing expression, printed below the snippet. */
  values?: ExpressionValue[];
  /** Attribute path inside a resource (provider diagnostics), as Terraform's cty.Path steps. */
  attributePath?: (string | number)[];
  /** Terraform's diagnostic address (tfdiags InConfigBody): the resource instance or provider a provider's
   *  answer concerns, printed as "  with ADDR," above the snippet and as JSON "address". */
  address?: string;
  /** tfdiags.Sourceless: a failed plugin call (crash, undecodable answer), never placed in a configuration body. */
  sourceless?: boolean;
  /** Never folded into a similar warning by the human views (tfdiags' DoNotConsolidateDiagnostic: check blocks). */
  noConsolidate?: boolean;
  /** Free-form origin marker for editors ("syntax", "static", "eval", "provider", "plan"). */
  source?: string;
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

export function error(summary: string, detail?: string, subject?: Range, extra?: Partial<Diagnostic>): Diagnostic {
  return { severity: 'error', summary, detail, subject, ...extra };
}

export function warning(summary: string, detail?: string, subject?: Range, extra?: Partial<Diagnostic>): Diagnostic {
  return { severity: 'warning', summary, detail, subject, ...extra };
}

/** Builds a Pos for a 0-based byte offset into `src` (computes line and column by scanning; for error paths). */
export function posAt(src: string, index: number): Pos {
  let line = 1;
  let col = 1;
  let byte = 0;
  for (let i = 0; i < index && i < src.length; ) {
    const c = src.codePointAt(i)!;
    const w = c > 0xffff ? 2 : 1;
    byte += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c === 10) {
      line++;
      col = 1;
    } else col++;
    i += w;
  }
  return { line, column: col, byte };
}
