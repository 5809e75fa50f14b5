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

/** A text whose offsets (UTF-16) have positions: config/source.ts SourceText. */
export interface PositionSource {
  readonly filename: string;
  pos(offset: number): Pos;
  /** The range between two offsets (possibly an object shared with earlier callers). */
  range(from: number, to: number): Range;
}

/**
 * A range of a text as two offsets, its positions computed when read (SourceText keeps the line table and a cache
 * of recent positions). A loaded module has hundreds of thousands of ranges and reads the positions of few of them:
 * this is one object per range where eager positions made up to three (a range and its two positions; positions
 * were a fifth of a loaded model's heap).
 *
 * To its readers it is a Range, with two exceptions a plain object does not have: a spread (`{ ...r }`) copies its
 * fields, not its positions, and a structured clone (a message to another thread) throws (SourceText refuses to be
 * cloned). Both take `plainRange(r)`; JSON.stringify writes the plain range (toJSON).
 */
export class OffsetRange implements Range {
  constructor(
    readonly source: PositionSource,
    readonly from: number,
    readonly to: number,
  ) {}
  get filename(): string {
    return this.source.filename;
  }
  get start(): Pos {
    return this.source.pos(this.from);
  }
  get end(): Pos {
    return this.source.pos(this.to);
  }
  toJSON(): Range {
    return plainRange(this);
  }
}

/** `r` as a plain object with the same positions: for spreading, and for messages to other threads. */
export function plainRange(r: Range): Range {
  return { filename: r.filename, start: r.start, end: r.end };
}

/** `d` as it can be posted to another thread: its ranges plain objects (the same object when they are already). */
export function messageDiagnostic(d: Diagnostic): Diagnostic {
  if (!(d.subject instanceof OffsetRange) && !(d.context instanceof OffsetRange)) return d;
  const out = { ...d };
  if (d.subject) out.subject = plainRange(d.subject);
  if (d.context) out.context = plainRange(d.context);
  return out;
}

/** Whether `inner` lies within `outer` (ranges of the same file). */
export function rangeWithin(inner: Range, outer: Range): boolean {
  if (inner instanceof OffsetRange && outer instanceof OffsetRange && inner.source === outer.source) return inner.from >= outer.from && inner.to <= outer.to;
  return inner.start.byte >= outer.start.byte && inner.end.byte <= outer.end.byte;
}

/** The range from the start of `a` to the end of `b`. */
export function rangeSpan(a: Range, b: Range): Range {
  if (a instanceof OffsetRange && b instanceof OffsetRange && a.source === b.source) return a.source.range(a.from, b.to);
  return { filename: a.filename, start: a.start, end: b.end };
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
