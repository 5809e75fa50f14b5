// Syntax check and structure of an HCL native-syntax configuration file, following the decisions of HCL's
// own parser (hclsyntax) so that `foresight fmt` rejects exactly the files `terraform fmt` rejects, with the
// same messages, ranges and recovery behaviour.
//
// The result lists the bodies, attributes and blocks as spans of token indices, which is what the formatter
// needs for Terraform's rewrites (label normalisation, legacy interpolation and type unwrapping), plus the
// byte ranges of top-level blocks for the diagnostic context line ("in resource "a" "b"").

import { T, type Token } from './lexer';

/** A source span as UTF-16 offsets into the (BOM-stripped) source. */
export interface Span {
  s: number;
  e: number;
}

export interface SynDiag {
  summary: string;
  detail: string;
  subject: Span;
  context?: Span;
}

export interface PAttr {
  name: string;
  nameSpan: Span;
  /** Token indices (inclusive) of the expression. */
  exprFirst: number;
  exprLast: number;
}

export interface PBlock {
  type: string;
  /** Decoded labels as HCL's parser records them (used for the context string). */
  labels: string[];
  /** Token indices (inclusive) of the first and last label, or -1 when there are none. */
  labelFirst: number;
  labelLast: number;
  /** Index of the first token after the block type (comments before the first label are replaced with the labels). */
  afterType: number;
  /** Token index spans (inclusive) of each label, in order. */
  labelSpans: [number, number][];
  body: PBody;
  span: Span;
}

export interface PBody {
  attrs: PAttr[];
  blocks: PBlock[];
}

export interface ParseResult {
  body: PBody;
  diags: SynDiag[];
}

interface Peeked {
  type: T;
  tok: Token;
  /** Index of the next token after this one. */
  next: number;
}

interface Expr {
  span: Span;
  first: number;
  last: number;
  kind?: 'lit' | 'template';
}

const BINARY_LEVELS: T[][] = [
  [T.Or],
  [T.And],
  [T.EqualOp, T.NotEqual],
  [T.GreaterThan, T.GreaterThanEq, T.LessThan, T.LessThanEq],
  [T.Plus, T.Minus],
  [T.Star, T.Slash, T.Percent],
];

const OPPOSITE: Partial<Record<T, T>> = {
  [T.OBrace]: T.CBrace,
  [T.OBrack]: T.CBrack,
  [T.OParen]: T.CParen,
  [T.OQuote]: T.CQuote,
  [T.OHeredoc]: T.CHeredoc,
  [T.CBrace]: T.OBrace,
  [T.CBrack]: T.OBrack,
  [T.CParen]: T.OParen,
  [T.CQuote]: T.OQuote,
  [T.CHeredoc]: T.OHeredoc,
  [T.TemplateControl]: T.TemplateSeqEnd,
  [T.TemplateInterp]: T.TemplateSeqEnd,
  [T.TemplateSeqEnd]: T.TemplateInterp,
};

const between = (a: Span, b: Span): Span => ({ s: Math.min(a.s, b.s), e: Math.max(a.e, b.e) });

/** Extra helper for "%s" positions in messages: formats a span as HCL's Range.String does. */
export type SpanFormatter = (sp: Span) => string;

export function parseConfig(src: string, tokens: Token[], fmtSpan: SpanFormatter): ParseResult {
  return new Parser(src, tokens, fmtSpan).parseFile();
}

class Parser {
  private next = 0;
  private nl: boolean[] = [true];
  private recovery = false;

  constructor(
    private readonly src: string,
    private readonly toks: Token[],
    private readonly fmtSpan: SpanFormatter,
  ) {}

  parseFile(): ParseResult {
    const [body, diags] = this.parseBody(T.EOF);
    return { body, diags };
  }

  // ---- peeker ----

  private text(t: Token): string {
    return this.src.slice(t.start, t.end);
  }

  private cacheAt = -1;
  private cacheInc = false;
  private cache?: Peeked;

  private nextToken(): Peeked {
    const inc = this.nl[this.nl.length - 1];
    if (this.cache && this.cacheAt === this.next && this.cacheInc === inc) return this.cache;
    this.cacheAt = this.next;
    this.cacheInc = inc;
    return (this.cache = this.scanToken(inc));
  }

  private scanToken(inc: boolean): Peeked {
    for (let i = this.next; i < this.toks.length; i++) {
      const tok = this.toks[i];
      if (tok.type === T.Comment) {
        if (inc && this.src.charCodeAt(tok.end - 1) === 10) return { type: T.Newline, tok, next: i + 1 };
        continue;
      }
      if (tok.type === T.Newline && !inc) continue;
      return { type: tok.type, tok, next: i + 1 };
    }
    const last = this.toks[this.toks.length - 1];
    return { type: last.type, tok: last, next: this.toks.length };
  }

  private peek(): Peeked {
    return this.nextToken();
  }

  private read(): Peeked {
    const p = this.nextToken();
    this.next = p.next;
    return p;
  }

  private span(p: Peeked | Token): Span {
    const t = 'tok' in p ? p.tok : p;
    return { s: t.start, e: t.end };
  }

  private prevSpan(): Span {
    if (this.next === 0) return this.span(this.peek());
    return this.span(this.toks[this.next - 1]);
  }

  private prevIndex(): number {
    return Math.max(0, this.next - 1);
  }

  private push(inc: boolean) {
    this.nl.push(inc);
  }

  private pop() {
    this.nl.pop();
  }

  private isKeyword(p: Peeked, kw: string): boolean {
    return p.type === T.Ident && this.text(p.tok) === kw;
  }

  private recover(end: T): Peeked {
    const start = OPPOSITE[end];
    this.recovery = true;
    let nest = 0;
    for (;;) {
      const tok = this.read();
      let ty = tok.type;
      if (end === T.TemplateSeqEnd && ty === T.TemplateControl) ty = T.TemplateInterp;
      if (ty === start) nest++;
      else if (ty === end) {
        if (nest < 1) return tok;
        nest--;
      } else if (ty === T.EOF) return tok;
    }
  }

  private recoverOver(start: T) {
    const end = OPPOSITE[start]!;
    for (;;) {
      const tok = this.read();
      if (tok.type === start || tok.type === T.EOF) break;
    }
    this.recover(end);
  }

  private recoverAfterBodyItem() {
    this.recovery = true;
    const open: T[] = [];
    for (;;) {
      const tok = this.read();
      switch (tok.type) {
        case T.Newline:
          if (open.length === 0) return;
          break;
        case T.EOF:
          return;
        case T.OBrace:
        case T.OBrack:
        case T.OParen:
        case T.OQuote:
        case T.OHeredoc:
        case T.TemplateInterp:
        case T.TemplateControl:
          open.push(tok.type);
          break;
        case T.CBrace:
        case T.CBrack:
        case T.CParen:
        case T.CQuote:
        case T.CHeredoc: {
          const opener = OPPOSITE[tok.type];
          while (open.length > 0 && open[open.length - 1] !== opener) open.pop();
          if (open.length > 0) open.pop();
          break;
        }
        case T.TemplateSeqEnd:
          while (open.length > 0 && open[open.length - 1] !== T.TemplateInterp && open[open.length - 1] !== T.TemplateControl) open.pop();
          if (open.length > 0) open.pop();
          break;
      }
    }
  }

  // ---- bodies ----

  private parseBody(end: T): [PBody, SynDiag[]] {
    const body: PBody = { attrs: [], blocks: [] };
    const diags: SynDiag[] = [];
    const startRange = this.prevSpan();
    const seen = new Map<string, PAttr>();
    for (;;) {
      const next = this.peek();
      if (next.type === end) {
        this.read();
        break;
      }
      if (next.type === T.Newline) {
        this.read();
        continue;
      }
      if (next.type === T.Ident) {
        const [item, itemDiags] = this.parseBodyItem();
        diags.push(...itemDiags);
        if (item && 'exprFirst' in item) {
          const existing = seen.get(item.name);
          if (existing) {
            diags.push({
              summary: 'Attribute redefined',
              detail: `The argument ${goQuote(item.name)} was already set at ${this.fmtSpan(existing.nameSpan)}. Each argument may be set only once.`,
              subject: item.nameSpan,
            });
          } else {
            seen.set(item.name, item);
            body.attrs.push(item);
          }
        } else if (item) body.blocks.push(item);
        continue;
      }
      const bad = this.read();
      if (!this.recovery) {
        if (bad.type === T.OQuote) {
          diags.push({ summary: 'Invalid argument name', detail: 'Argument names must not be quoted.', subject: this.span(bad) });
        } else if (bad.type === T.EOF) {
          if (end === T.CBrace) {
            diags.push({
              summary: 'Unclosed configuration block',
              detail:
                'There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.',
              subject: startRange,
            });
          } else {
            diags.push({ summary: 'Unclosed configuration body', detail: 'Found end of file before the end of this configuration body.', subject: startRange });
          }
        } else {
          diags.push({ summary: 'Argument or block definition required', detail: 'An argument or block definition is required here.', subject: this.span(bad) });
        }
      }
      this.recover(end);
      break;
    }
    return [body, diags];
  }

  private parseBodyItem(): [PAttr | PBlock | undefined, SynDiag[]] {
    const ident = this.read();
    const next = this.peek();
    if (next.type === T.Equal) return this.finishAttribute(ident, false);
    if (next.type === T.OQuote || next.type === T.OBrace || next.type === T.Ident) return this.finishBlock(ident);
    this.recoverAfterBodyItem();
    return [
      undefined,
      [
        {
          summary: 'Argument or block definition required',
          detail: 'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.',
          subject: this.span(ident),
        },
      ],
    ];
  }

  private parseSingleAttrBody(): [PBody | undefined, SynDiag[]] {
    const ident = this.read();
    if (ident.type !== T.Ident) {
      this.recoverAfterBodyItem();
      return [undefined, [{ summary: 'Argument or block definition required', detail: 'An argument or block definition is required here.', subject: this.span(ident) }]];
    }
    const next = this.peek();
    if (next.type === T.Equal) {
      const [attr, diags] = this.finishAttribute(ident, true);
      return [{ attrs: [attr], blocks: [] }, diags];
    }
    this.recoverAfterBodyItem();
    if (next.type === T.OQuote || next.type === T.OBrace || next.type === T.Ident) {
      return [
        undefined,
        [
          {
            summary: 'Argument definition required',
            detail: `A single-line block definition can contain only a single argument. If you meant to define argument ${goQuote(this.text(ident.tok))}, use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.`,
            subject: between(this.span(ident), this.span(next)),
          },
        ],
      ];
    }
    return [
      undefined,
      [
        {
          summary: 'Argument or block definition required',
          detail: 'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.',
          subject: this.span(ident),
        },
      ],
    ];
  }

  private finishAttribute(ident: Peeked, singleLine: boolean): [PAttr, SynDiag[]] {
    this.read(); // the equals sign
    const exprStart = this.peek();
    const [expr, diags] = this.parseExpression();
    if (this.recovery && diags.length > 0) {
      this.recoverAfterBodyItem();
    } else if (!singleLine) {
      const end = this.peek();
      if (end.type !== T.Newline && end.type !== T.EOF) {
        if (!this.recovery) {
          let summary = 'Missing newline after argument';
          let detail = 'An argument definition must end with a newline.';
          if (end.type === T.Comma) {
            summary = 'Unexpected comma after argument';
            detail = 'Argument definitions must be separated by newlines, not commas. ' + detail;
          }
          diags.push({ summary, detail, subject: this.span(end), context: between(this.span(ident), this.span(end)) });
        }
        this.recoverAfterBodyItem();
      } else {
        this.read();
      }
    }
    const first = exprStart.next - 1;
    return [{ name: this.text(ident.tok), nameSpan: this.span(ident), exprFirst: first, exprLast: Math.max(first, expr.last) }, diags];
  }

  private finishBlock(ident: Peeked): [PBlock, SynDiag[]] {
    const type = this.text(ident.tok);
    const diags: SynDiag[] = [];
    const labels: string[] = [];
    let labelFirst = -1;
    let labelLast = -1;
    const labelSpans: [number, number][] = [];
    let oBrace: Peeked;
    for (;;) {
      const tok = this.peek();
      if (tok.type === T.OBrace) {
        oBrace = this.read();
        break;
      }
      if (tok.type === T.OQuote) {
        const idx = tok.next - 1;
        const [label, labelDiags] = this.parseQuotedStringLiteral();
        diags.push(...labelDiags);
        labels.push(label);
        if (labelFirst < 0) labelFirst = idx;
        labelLast = this.prevIndex();
        labelSpans.push([idx, labelLast]);
        continue;
      }
      if (tok.type === T.Ident) {
        this.read();
        labels.push(this.text(tok.tok));
        if (labelFirst < 0) labelFirst = tok.next - 1;
        labelLast = tok.next - 1;
        labelSpans.push([labelLast, labelLast]);
        continue;
      }
      const ctx = between(this.span(ident), this.span(tok));
      if (tok.type === T.Equal) {
        diags.push({
          summary: 'Invalid block definition',
          detail: 'The equals sign "=" indicates an argument definition, and must not be used when defining a block.',
          subject: this.span(tok),
          context: ctx,
        });
      } else if (tok.type === T.Newline) {
        diags.push({
          summary: 'Invalid block definition',
          detail: 'A block definition must have block content delimited by "{" and "}", starting on the same line as the block header.',
          subject: this.span(tok),
          context: ctx,
        });
      } else if (!this.recovery) {
        diags.push({
          summary: 'Invalid block definition',
          detail: 'Either a quoted string block label or an opening brace ("{") is expected here.',
          subject: this.span(tok),
          context: ctx,
        });
      }
      this.recoverAfterBodyItem();
      return [{ type, labels, labelFirst, labelLast, labelSpans, afterType: ident.next, body: { attrs: [], blocks: [] }, span: this.span(ident) }, diags];
    }

    let body: PBody | undefined;
    let bodyDiags: SynDiag[];
    const after = this.peek().type;
    if (after === T.Newline || after === T.EOF || after === T.CBrace) {
      [body, bodyDiags] = this.parseBody(T.CBrace);
    } else {
      [body, bodyDiags] = this.parseSingleAttrBody();
      const p = this.peek();
      if (p.type === T.CBrace) {
        this.read();
      } else if (p.type === T.Comma) {
        diags.push({
          summary: 'Invalid single-argument block definition',
          detail:
            'Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.',
          subject: this.span(p),
        });
        this.recover(T.CBrace);
      } else if (p.type === T.Newline) {
        diags.push({
          summary: 'Invalid single-argument block definition',
          detail:
            "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
          subject: this.span(p),
        });
        this.recover(T.CBrace);
      } else {
        if (!this.recovery) {
          if (p.type === T.EOF) {
            diags.push({
              summary: 'Unclosed configuration block',
              detail:
                'There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.',
              subject: this.span(oBrace),
              context: between(this.span(ident), this.span(oBrace)),
            });
          } else {
            diags.push({
              summary: 'Invalid single-argument block definition',
              detail: 'A single-line block definition must end with a closing brace immediately after its single argument definition.',
              subject: this.span(p),
            });
          }
        }
        this.recover(T.CBrace);
      }
    }
    diags.push(...bodyDiags);
    const cBrace = this.prevSpan();
    const eol = this.peek();
    if (eol.type === T.Newline || eol.type === T.EOF) {
      this.read();
    } else {
      if (!this.recovery) {
        diags.push({
          summary: 'Missing newline after block definition',
          detail: 'A block definition must end with a newline.',
          subject: this.span(eol),
          context: between(this.span(ident), this.span(eol)),
        });
      }
      this.recoverAfterBodyItem();
    }
    return [{ type, labels, labelFirst, labelLast, labelSpans, afterType: ident.next, body: body ?? { attrs: [], blocks: [] }, span: between(this.span(ident), cBrace) }, diags];
  }

  // ---- expressions ----

  private mk(first: Peeked, lastIdx: number, kind?: Expr['kind']): Expr {
    const last = this.toks[lastIdx];
    return { span: { s: first.tok.start, e: last.end }, first: first.next - 1, last: lastIdx, kind };
  }

  private join(a: Expr, b: Expr): Expr {
    return { span: between(a.span, b.span), first: a.first, last: b.last };
  }

  parseExpression(): [Expr, SynDiag[]] {
    const start = this.peek();
    const diags: SynDiag[] = [];
    const [cond, condDiags] = this.parseBinary(0);
    diags.push(...condDiags);
    if (this.recovery && condDiags.length > 0) return [cond, diags];
    const q = this.peek();
    if (q.type !== T.Question) return [cond, diags];
    this.read();
    const [, trueDiags] = this.parseExpression();
    diags.push(...trueDiags);
    if (this.recovery && trueDiags.length > 0) return [cond, diags];
    const colon = this.peek();
    if (colon.type !== T.Colon) {
      diags.push({
        summary: 'Missing false expression in conditional',
        detail: 'The conditional operator (...?...:...) requires a false expression, delimited by a colon.',
        subject: this.span(colon),
        context: between(this.span(start), this.span(colon)),
      });
      return [cond, diags];
    }
    this.read();
    const [falseExpr, falseDiags] = this.parseExpression();
    diags.push(...falseDiags);
    if (this.recovery && falseDiags.length > 0) return [cond, diags];
    return [this.join(cond, falseExpr), diags];
  }

  private parseBinary(level: number): [Expr, SynDiag[]] {
    if (level >= BINARY_LEVELS.length) return this.parseWithTraversals();
    const ops = BINARY_LEVELS[level];
    const diags: SynDiag[] = [];
    let [lhs, lhsDiags] = this.parseBinary(level + 1);
    diags.push(...lhsDiags);
    if (this.recovery && lhsDiags.length > 0) return [lhs, diags];
    let rhs: Expr | undefined;
    for (;;) {
      const next = this.peek();
      if (!ops.includes(next.type)) break;
      if (rhs) lhs = this.join(lhs, rhs);
      this.read();
      const [r, rDiags] = this.parseBinary(level + 1);
      rhs = r;
      diags.push(...rDiags);
      if (this.recovery && rDiags.length > 0) return [lhs, diags];
    }
    return [rhs ? this.join(lhs, rhs) : lhs, diags];
  }

  private parseWithTraversals(): [Expr, SynDiag[]] {
    const [term, diags] = this.parseTerm();
    const [ret, more] = this.parseTraversals(term);
    return [ret, [...diags, ...more]];
  }

  private parseTraversals(from: Expr): [Expr, SynDiag[]] {
    const diags: SynDiag[] = [];
    let ret = from;
    const extend = () => {
      ret = { span: { s: ret.span.s, e: this.prevSpan().e }, first: ret.first, last: this.prevIndex() };
    };
    for (;;) {
      const next = this.peek();
      if (next.type === T.Dot) {
        this.read();
        const attr = this.peek();
        if (attr.type === T.Ident) {
          this.read();
          extend();
        } else if (attr.type === T.NumberLit) {
          this.read();
          const txt = this.text(attr.tok);
          const dot = txt.indexOf('.');
          if (dot >= 0) {
            diags.push({
              summary: 'Invalid legacy index syntax',
              detail: `When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [${txt.slice(0, dot)}][${txt.slice(dot + 1)}].`,
              subject: this.span(attr),
            });
          }
          extend();
        } else if (attr.type === T.Star) {
          this.read();
          extend();
          while (this.peek().type === T.Dot) {
            this.read();
            const p = this.peek();
            if (p.type === T.NumberLit) {
              this.read();
              const txt = this.text(p.tok);
              const dot = txt.indexOf('.');
              if (dot >= 0) {
                diags.push({
                  summary: 'Invalid legacy index syntax',
                  detail: `When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax with a full splat expression [*] instead, like [${txt.slice(0, dot)}][${txt.slice(dot + 1)}].`,
                  subject: this.span(attr),
                });
              }
              extend();
              continue;
            }
            if (p.type !== T.Ident) {
              if (!this.recovery) {
                if (p.type === T.Star) {
                  diags.push({
                    summary: 'Nested splat expression not allowed',
                    detail: 'A splat expression (*) cannot be used inside another attribute-only splat expression.',
                    subject: this.span(p),
                  });
                } else {
                  diags.push({ summary: 'Invalid attribute name', detail: 'An attribute name is required after a dot.', subject: this.span(attr) });
                }
              }
              this.recovery = true;
              break;
            }
            this.read();
            extend();
          }
        } else {
          diags.push({ summary: 'Invalid attribute name', detail: 'An attribute name is required after a dot.', subject: this.span(attr) });
          extend();
          this.recovery = true;
        }
        continue;
      }
      if (next.type === T.OBrack) {
        this.read();
        if (this.peek().type === T.Star) {
          this.read();
          const close = this.read();
          if (close.type !== T.CBrack && !this.recovery) {
            diags.push({
              summary: 'Missing close bracket on splat index',
              detail: 'The star for a full splat operator must be immediately followed by a closing bracket ("]").',
              subject: this.span(close),
            });
            this.recover(T.CBrack);
          }
          extend();
          const [trav, nested] = this.parseTraversals(ret);
          diags.push(...nested);
          ret = trav;
        } else {
          this.push(false);
          const [, keyDiags] = this.parseExpression();
          diags.push(...keyDiags);
          if (this.recovery && keyDiags.length > 0) {
            this.recover(T.CBrack);
          } else {
            const close = this.read();
            if (close.type !== T.CBrack && !this.recovery) {
              diags.push({
                summary: 'Missing close bracket on index',
                detail: 'The index operator must end with a closing bracket ("]").',
                subject: this.span(close),
              });
              this.recover(T.CBrack);
            }
          }
          this.pop();
          extend();
        }
        continue;
      }
      break;
    }
    return [ret, diags];
  }

  private parseTerm(): [Expr, SynDiag[]] {
    const start = this.peek();
    switch (start.type) {
      case T.OParen: {
        this.read();
        this.push(false);
        const [expr, diags] = this.parseExpression();
        if (diags.length > 0) {
          this.recover(T.CParen);
          this.pop();
          return [expr, diags];
        }
        const close = this.peek();
        if (close.type !== T.CParen) {
          diags.push({
            summary: 'Unbalanced parentheses',
            detail: 'Expected a closing parenthesis to terminate the expression.',
            subject: this.span(close),
            context: between(this.span(start), this.span(close)),
          });
          this.recovery = true;
        }
        this.read();
        this.pop();
        return [this.mk(start, this.prevIndex()), diags];
      }
      case T.NumberLit:
        this.read();
        return [this.mk(start, start.next - 1, 'lit'), []];
      case T.Ident: {
        this.read();
        const p = this.peek().type;
        if (p === T.OParen || p === T.DoubleColon) return this.finishFunctionCall(start);
        return [this.mk(start, start.next - 1), []];
      }
      case T.OQuote:
      case T.OHeredoc: {
        this.read();
        const closer = start.type === T.OQuote ? T.CQuote : T.CHeredoc;
        const diags = this.parseTemplateParts(closer);
        return [this.mk(start, this.prevIndex(), 'template'), diags];
      }
      case T.Minus:
      case T.Bang: {
        this.read();
        const [operand, diags] = this.parseWithTraversals();
        return [{ span: between(this.span(start), operand.span), first: start.next - 1, last: operand.last }, diags];
      }
      case T.OBrack:
        return this.parseTuple();
      case T.OBrace:
        return this.parseObject();
      default: {
        const diags: SynDiag[] = [];
        if (!this.recovery) {
          if (start.type === T.EOF) {
            diags.push({ summary: 'Missing expression', detail: 'Expected the start of an expression, but found the end of the file.', subject: this.span(start) });
          } else {
            diags.push({
              summary: 'Invalid expression',
              detail: 'Expected the start of an expression, but found an invalid expression token.',
              subject: this.span(start),
            });
          }
        }
        this.recovery = true;
        return [this.mk(start, start.next - 1), diags];
      }
    }
  }

  private finishFunctionCall(name: Peeked): [Expr, SynDiag[]] {
    const diags: SynDiag[] = [];
    let open = this.read();
    while (open.type === T.DoubleColon) {
      const nextName = this.read();
      if (nextName.type !== T.Ident) {
        diags.push({
          summary: 'Missing function name',
          detail: 'Function scope resolution symbol :: must be followed by a function name in this scope.',
          subject: this.span(nextName),
          context: between(this.span(name), this.span(nextName)),
        });
        this.recoverOver(T.OParen);
        return [this.mk(name, this.prevIndex()), diags];
      }
      open = this.read();
    }
    if (open.type !== T.OParen) {
      diags.push({
        summary: 'Missing open parenthesis',
        detail: 'Function selector must be followed by an open parenthesis to begin the function call.',
        subject: this.span(open),
        context: between(this.span(name), this.span(open)),
      });
      this.recoverOver(T.OParen);
      return [this.mk(name, this.prevIndex()), diags];
    }
    this.push(false);
    for (;;) {
      if (this.peek().type === T.CParen) {
        this.read();
        break;
      }
      const [, argDiags] = this.parseExpression();
      diags.push(...argDiags);
      if (this.recovery && argDiags.length > 0) {
        this.recover(T.CParen);
        break;
      }
      const sep = this.read();
      if (sep.type === T.CParen) break;
      if (sep.type === T.Ellipsis) {
        if (this.peek().type !== T.CParen) {
          if (!this.recovery) {
            diags.push({
              summary: 'Missing closing parenthesis',
              detail: 'An expanded function argument (with ...) must be immediately followed by closing parentheses.',
              subject: this.span(sep),
              context: between(this.span(name), this.span(sep)),
            });
          }
          this.recover(T.CParen);
        } else this.read();
        break;
      }
      if (sep.type !== T.Comma) {
        if (sep.type === T.EOF) {
          diags.push({
            summary: 'Unterminated function call',
            detail:
              'There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.',
            subject: between(this.span(name), this.span(open)),
          });
        } else {
          diags.push({
            summary: 'Missing argument separator',
            detail: 'A comma is required to separate each function argument from the next.',
            subject: this.span(sep),
            context: between(this.span(name), this.span(sep)),
          });
        }
        this.recover(T.CParen);
        break;
      }
      if (this.peek().type === T.CParen) {
        this.read();
        break;
      }
    }
    this.pop();
    return [this.mk(name, this.prevIndex()), diags];
  }

  private parseTuple(): [Expr, SynDiag[]] {
    const open = this.read();
    this.push(false);
    try {
      if (this.isKeyword(this.peek(), 'for')) return this.finishFor(open);
      const diags: SynDiag[] = [];
      for (;;) {
        if (this.peek().type === T.CBrack) {
          this.read();
          break;
        }
        const [, exprDiags] = this.parseExpression();
        diags.push(...exprDiags);
        if (this.recovery && exprDiags.length > 0) {
          this.recover(T.CBrack);
          break;
        }
        const next = this.peek();
        if (next.type === T.CBrack) {
          this.read();
          break;
        }
        if (next.type !== T.Comma) {
          if (!this.recovery) {
            if (next.type === T.EOF) {
              diags.push({
                summary: 'Unterminated tuple constructor expression',
                detail:
                  'There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.',
                subject: this.span(open),
              });
            } else {
              diags.push({
                summary: 'Missing item separator',
                detail: 'Expected a comma to mark the beginning of the next item.',
                subject: this.span(next),
                context: between(this.span(open), this.span(next)),
              });
            }
          }
          this.recover(T.CBrack);
          break;
        }
        this.read();
      }
      return [this.mk(open, this.prevIndex()), diags];
    } finally {
      this.pop();
    }
  }

  private parseObject(): [Expr, SynDiag[]] {
    const open = this.read();
    this.push(false);
    const isFor = this.isKeyword(this.peek(), 'for');
    this.pop();
    if (isFor) return this.finishFor(open);
    this.push(true);
    try {
      const diags: SynDiag[] = [];
      const unterminated = (): SynDiag => ({
        summary: 'Unterminated object constructor expression',
        detail: 'There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.',
        subject: this.span(open),
      });
      for (;;) {
        let next = this.peek();
        if (next.type === T.Newline) {
          this.read();
          continue;
        }
        if (next.type === T.CBrace) {
          this.read();
          break;
        }
        const [, keyDiags] = this.parseExpression();
        diags.push(...keyDiags);
        if (this.recovery && keyDiags.length > 0) {
          this.recover(T.CBrace);
          break;
        }
        next = this.peek();
        if (next.type !== T.Equal && next.type !== T.Colon) {
          if (!this.recovery) {
            const ctx = between(this.span(open), this.span(next));
            if (next.type === T.Newline || next.type === T.Comma) {
              diags.push({
                summary: 'Missing attribute value',
                detail: 'Expected an attribute value, introduced by an equals sign ("=").',
                subject: this.span(next),
                context: ctx,
              });
            } else if (next.type === T.Ident) {
              diags.push({
                summary: 'Missing key/value separator',
                detail:
                  'Expected an equals sign ("=") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.',
                subject: this.span(next),
                context: ctx,
              });
            } else if (next.type === T.EOF) {
              diags.push(unterminated());
            } else {
              diags.push({
                summary: 'Missing key/value separator',
                detail: 'Expected an equals sign ("=") to mark the beginning of the attribute value.',
                subject: this.span(next),
                context: ctx,
              });
            }
          }
          this.recover(T.CBrace);
          break;
        }
        this.read();
        const [, valueDiags] = this.parseExpression();
        diags.push(...valueDiags);
        if (this.recovery && valueDiags.length > 0) {
          this.recover(T.CBrace);
          break;
        }
        next = this.peek();
        if (next.type === T.CBrace) {
          this.read();
          break;
        }
        if (next.type !== T.Comma && next.type !== T.Newline) {
          if (!this.recovery) {
            if (next.type === T.EOF) diags.push(unterminated());
            else {
              diags.push({
                summary: 'Missing attribute separator',
                detail: 'Expected a newline or comma to mark the beginning of the next attribute.',
                subject: this.span(next),
                context: between(this.span(open), this.span(next)),
              });
            }
          }
          this.recover(T.CBrace);
          break;
        }
        this.read();
      }
      return [this.mk(open, this.prevIndex()), diags];
    } finally {
      this.pop();
    }
  }

  private finishFor(open: Peeked): [Expr, SynDiag[]] {
    this.push(false);
    try {
      this.read(); // "for"
      const makeObj = open.type === T.OBrace;
      const closeType = makeObj ? T.CBrace : T.CBrack;
      const diags: SynDiag[] = [];
      const fail = (detail: string): [Expr, SynDiag[]] => {
        if (!this.recovery) {
          const p = this.peek();
          diags.push({ summary: "Invalid 'for' expression", detail, subject: this.span(p), context: between(this.span(open), this.span(p)) });
        }
        this.recover(closeType);
        return [this.mk(open, this.prevIndex()), diags];
      };
      if (this.peek().type !== T.Ident) return fail("For expression requires variable name after 'for'.");
      this.read();
      if (this.peek().type === T.Comma) {
        this.read();
        if (this.peek().type !== T.Ident) return fail('For expression requires value variable name after comma.');
        this.read();
      }
      if (!this.isKeyword(this.peek(), 'in')) return fail("For expression requires the 'in' keyword after its name declarations.");
      this.read();
      const [, collDiags] = this.parseExpression();
      diags.push(...collDiags);
      if (this.recovery && collDiags.length > 0) {
        this.recover(closeType);
        return [this.mk(open, this.prevIndex()), diags];
      }
      if (this.peek().type !== T.Colon) return fail('For expression requires a colon after the collection expression.');
      this.read();
      let keyExpr: Expr | undefined;
      let keyDiags: SynDiag[] = [];
      let [valExpr, valDiags] = this.parseExpression();
      if (this.peek().type === T.FatArrow) {
        this.read();
        keyExpr = valExpr;
        keyDiags = valDiags;
        [valExpr, valDiags] = this.parseExpression();
      }
      diags.push(...keyDiags, ...valDiags);
      if (this.recovery && (keyDiags.length > 0 || valDiags.length > 0)) {
        this.recover(closeType);
        return [this.mk(open, this.prevIndex()), diags];
      }
      let ellipsis: Peeked | undefined;
      if (this.peek().type === T.Ellipsis) ellipsis = this.read();
      if (this.isKeyword(this.peek(), 'if')) {
        this.read();
        const [, condDiags] = this.parseExpression();
        diags.push(...condDiags);
        if (this.recovery && condDiags.length > 0) {
          this.recover(closeType);
          return [this.mk(open, this.prevIndex()), diags];
        }
      }
      if (this.peek().type === closeType) this.read();
      else {
        if (!this.recovery) {
          const p = this.peek();
          diags.push({
            summary: "Invalid 'for' expression",
            detail: "Extra characters after the end of the 'for' expression.",
            subject: this.span(p),
            context: between(this.span(open), this.span(p)),
          });
        }
        this.recover(closeType);
      }
      const whole = { s: open.tok.start, e: this.prevSpan().e };
      if (!makeObj) {
        if (keyExpr) diags.push({ summary: "Invalid 'for' expression", detail: 'Key expression is not valid when building a tuple.', subject: keyExpr.span, context: whole });
        if (ellipsis) {
          diags.push({
            summary: "Invalid 'for' expression",
            detail: 'Grouping ellipsis (...) cannot be used when building a tuple.',
            subject: this.span(ellipsis),
            context: whole,
          });
        }
      } else if (!keyExpr) {
        diags.push({ summary: "Invalid 'for' expression", detail: 'Key expression is required when building an object.', subject: valExpr.span, context: whole });
      }
      return [this.mk(open, this.prevIndex()), diags];
    } finally {
      this.pop();
    }
  }

  // ---- strings and templates ----

  private parseQuotedStringLiteral(): [string, SynDiag[]] {
    const oQuote = this.read();
    const diags: SynDiag[] = [];
    let ret = '';
    for (;;) {
      const tok = this.read();
      if (tok.type === T.CQuote) break;
      if (tok.type === T.QuotedLit) {
        const [s, sd] = decodeStringLit(this.text(tok.tok), tok.tok.start);
        diags.push(...sd);
        ret += s;
        continue;
      }
      if (tok.type === T.TemplateControl || tok.type === T.TemplateInterp) {
        const which = tok.type === T.TemplateControl ? '%' : '$';
        diags.push({
          summary: 'Invalid string literal',
          detail: `Template sequences are not allowed in this string. To include a literal "${which}", double it (as "${which}${which}") to escape it.`,
          subject: this.span(tok),
          context: between(this.span(oQuote), this.span(tok)),
        });
        ret += which + '{ ... }';
        this.recover(T.TemplateSeqEnd);
        continue;
      }
      if (tok.type === T.EOF) {
        diags.push({
          summary: 'Unterminated string literal',
          detail: 'Unable to find the closing quote mark before the end of the file.',
          subject: this.span(tok),
          context: between(this.span(oQuote), this.span(tok)),
        });
        break;
      }
      diags.push({
        summary: 'Invalid string literal',
        detail: 'This item is not valid in a string literal.',
        subject: this.span(tok),
        context: between(this.span(oQuote), this.span(tok)),
      });
      this.recover(T.CQuote);
      break;
    }
    return [ret, diags];
  }

  /** Parses the parts of a template up to `end` (the opener already read), then checks directive nesting. */
  private parseTemplateParts(end: T): SynDiag[] {
    const diags: SynDiag[] = [];
    const startRange = this.span(this.peek());
    const parts: { kind: 'lit' | 'interp' | 'if' | 'else' | 'endif' | 'for' | 'endfor'; span: Span }[] = [];
    let endRange: Span;
    for (;;) {
      const next = this.read();
      if (next.type === end) {
        endRange = this.span(next);
        break;
      }
      if (next.type === T.StringLit || next.type === T.QuotedLit) {
        const [, sd] = next.type === T.QuotedLit ? decodeStringLit(this.text(next.tok), next.tok.start) : ['', []];
        diags.push(...sd);
        parts.push({ kind: 'lit', span: this.span(next) });
        continue;
      }
      if (next.type === T.TemplateInterp) {
        this.push(false);
        const [, exprDiags] = this.parseExpression();
        diags.push(...exprDiags);
        const close = this.peek();
        if (close.type !== T.TemplateSeqEnd) {
          if (!this.recovery) {
            if (close.type === T.EOF) {
              diags.push({
                summary: 'Unclosed template interpolation sequence',
                detail:
                  'There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.',
                subject: startRange,
              });
            } else if (close.type === T.Colon) {
              diags.push({
                summary: 'Extra characters after interpolation expression',
                detail:
                  "Template interpolation doesn't expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with \"$${\" instead of just \"${\".",
                subject: this.span(close),
                context: between(startRange, this.span(close)),
              });
            } else if ((close.type === T.CQuote || close.type === T.OQuote) && end === T.CQuote) {
              diags.push({
                summary: 'Unclosed template interpolation sequence',
                detail:
                  'There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.',
                subject: startRange,
              });
            } else {
              diags.push({
                summary: 'Extra characters after interpolation expression',
                detail:
                  'Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with "$${" instead of just "${".',
                subject: this.span(close),
                context: between(startRange, this.span(close)),
              });
            }
          }
          this.recover(T.TemplateSeqEnd);
        } else this.read();
        this.pop();
        parts.push({ kind: 'interp', span: between(this.span(next), this.span(close)) });
        continue;
      }
      if (next.type === T.TemplateControl) {
        this.push(false);
        const kw = this.peek();
        if (kw.type !== T.Ident) {
          if (!this.recovery) {
            diags.push({
              summary: 'Invalid template directive',
              detail: 'A template directive keyword ("if", "for", etc) is expected at the beginning of a %{ sequence.',
              subject: this.span(kw),
              context: between(this.span(next), this.span(kw)),
            });
          }
          this.recover(T.TemplateSeqEnd);
          this.pop();
          continue;
        }
        this.read();
        const word = this.text(kw.tok);
        const here = () => between(this.span(next), this.span(this.peek()));
        let skip = false;
        if (word === 'if') {
          const [, d] = this.parseExpression();
          diags.push(...d);
          parts.push({ kind: 'if', span: here() });
        } else if (word === 'else' || word === 'endif' || word === 'endfor') {
          parts.push({ kind: word, span: here() });
        } else if (word === 'for') {
          const forFail = (detail: string) => {
            if (!this.recovery) diags.push({ summary: "Invalid 'for' directive", detail, subject: this.span(this.peek()) });
            this.recover(T.TemplateSeqEnd);
            this.pop();
            skip = true;
          };
          if (this.peek().type !== T.Ident) forFail("For directive requires variable name after 'for'.");
          else {
            this.read();
            let ok = true;
            if (this.peek().type === T.Comma) {
              this.read();
              if (this.peek().type !== T.Ident) {
                forFail('For directive requires value variable name after comma.');
                ok = false;
              } else this.read();
            }
            if (ok) {
              if (!this.isKeyword(this.peek(), 'in')) forFail("For directive requires 'in' keyword after names.");
              else {
                this.read();
                const [, d] = this.parseExpression();
                diags.push(...d);
                parts.push({ kind: 'for', span: here() });
              }
            }
          }
        } else {
          if (!this.recovery) {
            const sugg = nameSuggestion(word, ['if', 'for', 'else', 'endif', 'endfor']);
            diags.push({
              summary: 'Invalid template control keyword',
              detail: `${goQuote(word)} is not a valid template control keyword.${sugg ? ` Did you mean ${goQuote(sugg)}?` : ''}`,
              subject: this.span(kw),
              context: between(this.span(next), this.span(kw)),
            });
          }
          this.recover(T.TemplateSeqEnd);
          this.pop();
          continue;
        }
        if (skip) continue;
        const close = this.peek();
        if (close.type !== T.TemplateSeqEnd) {
          if (!this.recovery) {
            diags.push({
              summary: `Extra characters in ${word} marker`,
              detail: 'Expected a closing brace to end the sequence, but found extra characters.',
              subject: this.span(close),
              context: between(startRange, this.span(close)),
            });
          }
          this.recover(T.TemplateSeqEnd);
        } else this.read();
        this.pop();
        continue;
      }
      if (!this.recovery) {
        diags.push({
          summary: 'Unterminated template string',
          detail: 'No closing marker was found for the string.',
          subject: this.span(next),
          context: between(startRange, this.span(next)),
        });
      }
      endRange = this.span(this.recover(end));
      break;
    }
    diags.push(...this.checkDirectives(parts, endRange));
    return diags;
  }

  /** Reports unbalanced template directives the way HCL's template parser does. */
  private checkDirectives(parts: { kind: string; span: Span }[], endRange: Span): SynDiag[] {
    const diags: SynDiag[] = [];
    let pos = 0;
    const name = (k: string) => k;
    const parseSeq = (opener?: { kind: string; span: Span }): boolean => {
      let inElse = false;
      for (;;) {
        if (pos >= parts.length) {
          if (opener) {
            const what = opener.kind === 'if' ? 'if directive' : 'for directive';
            const closer = opener.kind === 'if' ? 'endif' : 'endfor';
            diags.push({
              summary: 'Unexpected end of template',
              detail: `The ${what} at ${this.fmtSpan(opener.span)} is missing its corresponding ${closer} directive.`,
              subject: endRange,
            });
          }
          return false;
        }
        const p = parts[pos];
        if (p.kind === 'lit' || p.kind === 'interp') {
          pos++;
          continue;
        }
        if (p.kind === 'if' || p.kind === 'for') {
          pos++;
          if (!parseSeq(p)) return false;
          continue;
        }
        // An end-of-control token.
        pos++;
        if (!opener) {
          diags.push({ summary: `Unexpected ${name(p.kind)} directive`, detail: 'The control directives within this template are unbalanced.', subject: p.span });
          continue;
        }
        if (opener.kind === 'if') {
          if (p.kind === 'else' && !inElse) {
            inElse = true;
            continue;
          }
          if (p.kind === 'endif') return true;
          diags.push(
            p.kind === 'else'
              ? { summary: 'Unexpected else directive', detail: `Already in the else clause for the if started at ${this.fmtSpan(opener.span)}.`, subject: p.span }
              : {
                  summary: `Unexpected ${p.kind} directive`,
                  detail: `Expecting an endif directive for the if started at ${this.fmtSpan(opener.span)}.`,
                  subject: p.span,
                },
          );
          return true;
        }
        if (p.kind === 'endfor') return true;
        diags.push(
          p.kind === 'else'
            ? { summary: 'Unexpected else directive', detail: 'An else clause is not expected for a for directive.', subject: p.span }
            : {
                summary: `Unexpected ${p.kind} directive`,
                detail: `Expecting an endfor directive corresponding to the for directive at ${this.fmtSpan(opener.span)}.`,
                subject: p.span,
              },
        );
        return true;
      }
    };
    while (pos < parts.length) parseSeq();
    return diags;
  }
}

// One implementation of Go's quoting for the whole engine (lang/goquote.ts); re-exported for this module's users.
import { goQuote } from '../lang/goquote';
export { goQuote };

/**
 * Decodes the escapes of a quoted-string literal token, as HCL's ParseStringLiteralToken does, returning the
 * value and any "Invalid escape sequence" diagnostics (spans are approximate: the whole escape).
 */
export function decodeStringLit(raw: string, offset: number): [string, SynDiag[]] {
  const diags: SynDiag[] = [];
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const c = raw[i];
    if (c === '\\') {
      const sel = raw[i + 1];
      if (sel === undefined) {
        diags.push({ summary: 'Invalid escape sequence', detail: 'Backslash must be followed by an escape sequence selector character.', subject: { s: offset + i, e: offset + i + 1 } });
        out += c;
        i++;
        continue;
      }
      const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };
      if (sel in simple) {
        out += simple[sel];
        i += 2;
        continue;
      }
      if (sel === 'u' || sel === 'U') {
        const want = sel === 'u' ? 4 : 8;
        const m = /^[0-9A-Fa-f]*/.exec(raw.slice(i + 2, i + 2 + want))![0];
        if (m.length !== want) {
          diags.push({
            summary: 'Invalid escape sequence',
            detail: sel === 'u' ? 'The \\u escape sequence must be followed by four hexadecimal digits.' : 'The \\U escape sequence must be followed by eight hexadecimal digits.',
            subject: { s: offset + i, e: offset + i + 2 + m.length },
          });
          out += raw.slice(i, i + 2 + m.length);
          i += 2 + m.length;
          continue;
        }
        const cp = parseInt(m, 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
          diags.push({
            summary: 'Invalid escape sequence',
            detail: `Cannot encode character U+${cp.toString(16).padStart(4, '0')} in UTF-8.`,
            subject: { s: offset + i, e: offset + i + 2 + want },
          });
          out += raw.slice(i, i + 2 + want);
        } else out += String.fromCodePoint(cp);
        i += 2 + want;
        continue;
      }
      const l = cpLenAt(raw, i + 1);
      diags.push({
        summary: 'Invalid escape sequence',
        detail: `The symbol ${goQuote(raw.slice(i + 1, i + 1 + l))} is not a valid escape sequence selector.`,
        subject: { s: offset + i, e: offset + i + 1 + l },
      });
      out += raw.slice(i + 1, i + 1 + l);
      i += 1 + l;
      continue;
    }
    if ((c === '$' || c === '%') && raw[i + 1] === c && raw[i + 2] === '{') {
      out += c + '{';
      i += 3;
      continue;
    }
    out += c;
    i++;
  }
  return [out, diags];
}

function cpLenAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

/** HCL's nameSuggestion: the first candidate within Levenshtein distance 3 of the given name. */
function nameSuggestion(given: string, suggestions: string[]): string {
  for (const s of suggestions) {
    if (levenshtein(given, s) < 3) return s;
  }
  return '';
}

function levenshtein(a: string, b: string): number {
  const A = [...a];
  const B = [...b];
  let prev = Array.from({ length: B.length + 1 }, (_, i) => i);
  for (let i = 1; i <= A.length; i++) {
    const cur = [i];
    for (let j = 1; j <= B.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (A[i - 1] === B[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[B.length];
}
