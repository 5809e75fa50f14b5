// Terraform's JSON configuration syntax (`*.tf.json`, HCL's json package as Terraform's configs package uses it):
// a JSON parser with HCL's positions and messages, and the conversion of a parsed file into the generic Body of
// hclbody.ts, so that load.ts decodes `.tf` and `.tf.json` files alike.
//
// HCL's JSON bodies have no syntax of their own for blocks: a property is a block or an attribute depending on the
// schema it is decoded with. Terraform's own schemas (the file's top-level blocks, resource meta-arguments,
// lifecycle, provisioner, dynamic, variable, output, terraform, ...) are known here, so those bodies are built
// exactly. Bodies whose schema is the provider's (resource, data and provider bodies, provisioner and dynamic
// `content` bodies) are built with every property as an attribute, each remembered with its JSON value;
// `jsonBodyForSchema` (called by engine/decode.ts) turns the properties a provider schema names as nested blocks into
// blocks, and reports the others HCL's way ("Extraneous JSON object property").
//
// Expressions follow HCL's JSON rules: a string is a template ("${...}", "%{...}") in places evaluated with a
// context, a plain string where Terraform decodes without one (descriptions, defaults, module source/version);
// where Terraform wants a reference or keyword (depends_on, provider, providers, ignore_changes,
// replace_triggered_by, moved/import/removed addresses, variable type, dynamic iterator, provisioner when /
// on_failure, configuration_aliases) the string is parsed as a native expression starting at the opening quote, as
// HCL's AsTraversal/ExprCall and Terraform's unwrapJSONRefExpr do. Object keys in values are templates too. The
// "//" property of a body is a comment. Every element carries its source range (HCL's columns: a tab counts two,
// string contents count code points).
//
// Consumers: load.ts (fileEntry, for names ending in ".tf.json"), engine/decode.ts (jsonBodyForSchema),
// config/variables.ts (jsonVariableValues, for .tfvars.json).

import type { Diagnostic, Pos, Range } from '../diags/diagnostic';
import { error, rangeSpan } from '../diags/diagnostic';
import type { Expr } from '../lang/ast';
import { Num } from '../lang/number';
import { parseExpression, parseTemplate } from '../lang/parse';
import * as T from '../lang/types';
import { Value } from '../lang/value';
import type { Block as SchemaBlock } from '../providers/schema';
import type { Attribute, Block, Body, Expression } from './hclbody';
import { astReferences } from './hclbody';

// ---- JSON nodes ---------------------------------------------------------------------------------------------

interface NodeBase {
  range: Range;
  /** UTF-16 offsets of the node in the file's text. */
  start: number;
  end: number;
}
export interface JObject extends NodeBase {
  kind: 'object';
  attrs: JAttr[];
  openRange: Range;
  closeRange: Range;
}
export interface JAttr {
  name: string;
  nameRange: Range;
  nameStart: number;
  value: JNode;
}
export interface JArray extends NodeBase {
  kind: 'array';
  values: JNode[];
  openRange: Range;
}
export type JNode =
  | JObject
  | JArray
  | (NodeBase & { kind: 'string'; value: string })
  | (NodeBase & { kind: 'number'; text: string })
  | (NodeBase & { kind: 'bool'; value: boolean })
  | (NodeBase & { kind: 'null' })
  | (NodeBase & { kind: 'invalid' });

type TokType = '{' | '}' | '[' | ']' | ',' | ':' | '=' | 'keyword' | 'string' | 'number' | 'eof' | 'invalid';
interface Token {
  type: TokType;
  text: string;
  range: Range;
  start: number;
  end: number;
}

interface Cursor {
  i: number;
  line: number;
  column: number;
  byte: number;
}

function utf8Len(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** HCL json's scanner: positions as it counts them (tab = 2 columns, "\r" no column). */
function scan(text: string, filename: string): Token[] {
  const toks: Token[] = [];
  const p: Cursor = { i: 0, line: 1, column: 1, byte: 0 };
  const pos = (c: Cursor): Pos => ({ line: c.line, column: c.column, byte: c.byte });
  for (;;) {
    for (; p.i < text.length; p.i++) {
      const ch = text[p.i];
      if (ch === ' ') {
        p.byte++;
        p.column++;
      } else if (ch === '\n') {
        p.byte++;
        p.column = 1;
        p.line++;
      } else if (ch === '\r') p.byte++;
      else if (ch === '\t') {
        p.byte++;
        p.column += 2;
      } else break;
    }
    const s = { ...p };
    if (p.i >= text.length) {
      toks.push({ type: 'eof', text: '', range: { filename, start: pos(p), end: pos(p) }, start: p.i, end: p.i });
      return toks;
    }
    const first = text[p.i];
    const push = (type: TokType) => toks.push({ type, text: text.slice(s.i, p.i), range: { filename, start: pos(s), end: pos(p) }, start: s.i, end: p.i });
    if ('{}[],:='.includes(first)) {
      p.i++;
      p.byte++;
      p.column++;
      push(first as TokType);
    } else if (first === '"') {
      p.i++;
      p.byte++;
      p.column++;
      let escaping = false;
      while (p.i < text.length) {
        const c = text.codePointAt(p.i)!;
        if (c === 0x5c) {
          escaping = !escaping;
          p.i++;
          p.byte++;
          p.column++;
        } else if (c === 0x22) {
          p.i++;
          p.byte++;
          p.column++;
          if (!escaping) break;
          escaping = false;
        } else if (c < 32) break;
        else {
          p.i += c > 0xffff ? 2 : 1;
          p.byte += utf8Len(c);
          p.column++;
          escaping = false;
        }
      }
      push('string');
    } else if ('-+.0123456789'.includes(first)) {
      while (p.i < text.length && '-+.eE0123456789'.includes(text[p.i])) {
        p.i++;
        p.byte++;
        p.column++;
      }
      push('number');
    } else if (/[A-Za-z]/.test(first)) {
      while (p.i < text.length && /[A-Za-z_]/.test(text[p.i])) {
        p.i++;
        p.byte++;
        p.column++;
      }
      push('keyword');
    } else {
      const c = text.codePointAt(p.i)!;
      const e: Cursor = { i: p.i + (c > 0xffff ? 2 : 1), line: p.line, column: p.column + 1, byte: p.byte + 1 };
      toks.push({ type: 'invalid', text: String.fromCodePoint(c), range: { filename, start: pos(s), end: pos(e) }, start: s.i, end: e.i });
      toks.push({ type: 'eof', text: '', range: { filename, start: pos(e), end: pos(e) }, start: e.i, end: e.i });
      return toks;
    }
  }
}

const VALUE_START = 'A JSON value must start with a brace, a bracket, a number, a string, or a keyword.';

class JsonParser {
  private k = 0;
  readonly diags: Diagnostic[] = [];
  constructor(private readonly toks: Token[]) {}
  peek(): Token {
    return this.toks[Math.min(this.k, this.toks.length - 1)];
  }
  read(): Token {
    const t = this.peek();
    if (this.k < this.toks.length - 1) this.k++;
    return t;
  }
  private fail(summary: string, detail: string, subject: Range, context?: Range): undefined {
    this.diags.push(error(summary, detail, subject, context ? { context } : undefined));
    return undefined;
  }

  value(): JNode {
    const tok = this.peek();
    let n: JNode | undefined;
    switch (tok.type) {
      case '{':
        n = this.object();
        break;
      case '[':
        n = this.array();
        break;
      case 'number':
        n = this.number();
        break;
      case 'string':
        n = this.string();
        break;
      case 'keyword':
        n = this.keyword();
        break;
      case '}':
        this.fail('Missing JSON value', VALUE_START, tok.range);
        break;
      case ']':
        this.fail('Missing array element value', VALUE_START, tok.range);
        break;
      case 'eof':
        this.fail('Missing value', 'The JSON data ends prematurely.', tok.range);
        break;
      default:
        this.fail('Invalid start of value', VALUE_START, tok.range);
    }
    return n ?? { kind: 'invalid', range: tok.range, start: tok.start, end: tok.end };
  }

  private recover(tok: Token, open: '{' | '[', close: '}' | ']'): void {
    let depth = 1;
    for (;;) {
      if (tok.type === open) depth++;
      else if (tok.type === close) {
        depth--;
        if (depth <= 1) return;
      } else if (tok.type === 'eof') return;
      tok = this.read();
    }
  }

  private object(): JObject | undefined {
    const open = this.read();
    const attrs: JAttr[] = [];
    for (;;) {
      if (this.peek().type === '}') break;
      // HCL's parseValue never returns nil: a failed value is an invalid node and parsing goes on after it.
      const key = this.value();
      if (key.kind !== 'string') return this.fail('Invalid object property name', 'A JSON object property name must be a string', startRange(key));
      const colon = this.read();
      if (colon.type !== ':') {
        this.recover(colon, '{', '}');
        if (colon.type === '}' || colon.type === ',') return this.fail('Missing object value', 'A JSON object attribute must have a value, introduced by a colon.', colon.range);
        if (colon.type === '=') return this.fail('Missing property value colon', 'JSON uses a colon as its name/value delimiter, not an equals sign.', colon.range);
        return this.fail('Missing property value colon', "A colon must appear between an object property's name and its value.", colon.range);
      }
      const val = this.value();
      attrs.push({ name: key.value, nameRange: key.range, nameStart: key.start, value: val });
      const next = this.peek();
      if (next.type === ',') {
        const comma = this.read();
        if (this.peek().type === '}') return this.fail('Trailing comma in object', 'JSON does not permit a trailing comma after the final property in an object.', comma.range);
        continue;
      }
      if (next.type === 'eof') return this.fail('Unclosed object', 'No closing brace was found for this JSON object.', open.range);
      if (next.type === ']') {
        this.read();
        return this.fail('Mismatched braces', 'A JSON object must be closed with a brace, not a bracket.', this.peek().range);
      }
      if (next.type === '}') break;
      this.recover(this.read(), '{', '}');
      return this.fail('Missing attribute seperator comma', 'A comma must appear between each property definition in an object.', this.peek().range);
    }
    const close = this.read();
    return { kind: 'object', attrs, range: rangeSpan(open.range, close.range), start: open.start, end: close.end, openRange: open.range, closeRange: close.range };
  }

  private array(): JArray | undefined {
    const open = this.read();
    const values: JNode[] = [];
    for (;;) {
      if (this.peek().type === ']') break;
      const v = this.value();
      values.push(v);
      const next = this.peek();
      if (next.type === ',') {
        const comma = this.read();
        if (this.peek().type === ']') return this.fail('Trailing comma in array', 'JSON does not permit a trailing comma after the final value in an array.', comma.range);
        continue;
      }
      if (next.type === ':') {
        this.recover(this.read(), '[', ']');
        return this.fail('Invalid array value', 'A colon is not used to introduce values in a JSON array.', this.peek().range);
      }
      if (next.type === 'eof') {
        this.recover(this.read(), '[', ']');
        return this.fail('Unclosed object', 'No closing bracket was found for this JSON array.', open.range);
      }
      if (next.type === '}') {
        this.recover(this.read(), '[', ']');
        return this.fail('Mismatched brackets', 'A JSON array must be closed with a bracket, not a brace.', this.peek().range);
      }
      if (next.type === ']') break;
      this.recover(this.read(), '[', ']');
      return this.fail('Missing attribute seperator comma', 'A comma must appear between each value in an array.', this.peek().range);
    }
    const close = this.read();
    return { kind: 'array', values, range: rangeSpan(open.range, close.range), start: open.start, end: close.end, openRange: open.range };
  }

  private number(): JNode | undefined {
    const tok = this.read();
    if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(tok.text) || !Num.parse(tok.text))
      return this.fail('Invalid JSON number', 'There is a syntax error in the given JSON number.', tok.range);
    return { kind: 'number', text: tok.text, range: tok.range, start: tok.start, end: tok.end };
  }

  private string(): JNode | undefined {
    const tok = this.read();
    const bad = goStringSyntaxErrorOffset(tok.text);
    if (bad !== undefined) {
      // HCL places the error by encoding/json's SyntaxError offset, counted in bytes onto both byte and column.
      const s = tok.range.start;
      const at: Pos = { line: s.line, column: s.column + bad, byte: s.byte + bad };
      const subject: Range = { filename: tok.range.filename, start: at, end: { line: at.line, column: at.column + 1, byte: at.byte + 1 } };
      return this.fail('Invalid JSON string', 'There is a syntax error in the given JSON string.', subject, tok.range);
    }
    return { kind: 'string', value: JSON.parse(tok.text) as string, range: tok.range, start: tok.start, end: tok.end };
  }

  private keyword(): JNode | undefined {
    const tok = this.read();
    const s = tok.text;
    if (s === 'true' || s === 'false') return { kind: 'bool', value: s === 'true', range: tok.range, start: tok.start, end: tok.end };
    if (s === 'null') return { kind: 'null', range: tok.range, start: tok.start, end: tok.end };
    if (s === 'undefined' || s === 'NaN' || s === 'Infinity') return this.fail('Invalid JSON keyword', `The JavaScript identifier ${goQuote(s)} cannot be used in JSON.`, tok.range);
    const sugg = ['false', 'true', 'null'].find((k) => levenshtein(s, k) < 3);
    return this.fail('Invalid JSON keyword', `${goQuote(s)} is not a valid JSON keyword.${sugg ? ` Did you mean ${goQuote(sugg)}?` : ''}`, tok.range);
  }
}

/**
 * Where Go's encoding/json reports a syntax error in a scanned string token, as a byte offset ("after reading
 * Offset bytes"), or undefined when the token is a valid JSON string.
 */
function goStringSyntaxErrorOffset(raw: string): number | undefined {
  const bytes = Buffer.from(raw, 'utf8');
  let i = 1;
  for (; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) return i === bytes.length - 1 ? undefined : i + 2;
    if (c < 0x20) return i + 1;
    if (c === 0x5c) {
      const e = bytes[i + 1];
      if (e === undefined) return bytes.length;
      if ('"\\/bfnrt'.includes(String.fromCharCode(e))) {
        i++;
        continue;
      }
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          const h = bytes[i + 2 + k];
          if (h === undefined) return bytes.length;
          if (!/[0-9a-fA-F]/.test(String.fromCharCode(h))) return i + 2 + k + 1;
        }
        i += 5;
        continue;
      }
      return i + 2;
    }
  }
  return bytes.length;
}

function goQuote(s: string): string {
  return JSON.stringify(s);
}

function levenshtein(a: string, b: string): number {
  const s = [...a];
  const t = [...b];
  let prev = Array.from({ length: t.length + 1 }, (_, i) => i);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[t.length];
}

/** HCL's StartRange of a node: the opening brace or bracket, else the whole node. */
function startRange(n: JNode): Range {
  return n.kind === 'object' || n.kind === 'array' ? n.openRange : n.range;
}

/**
 * Parses a whole JSON configuration file as HCL's json.Parse does: the value, "Extraneous data after value", and
 * "Root value must be object" (then an empty object stands in).
 */
export function parseJsonFile(text: string, filename: string): { root: JObject | JArray; diagnostics: Diagnostic[] } {
  const p = new JsonParser(scan(text, filename));
  const node = p.value();
  if (p.diags.length === 0 && p.peek().type !== 'eof') p.diags.push(error('Extraneous data after value', 'Extra characters appear after the JSON value.', p.peek().range));
  if (node.kind === 'object' || node.kind === 'array') return { root: node, diagnostics: p.diags };
  p.diags.push(
    error('Root value must be object', 'The root value in a JSON-based configuration must be either a JSON object or a JSON array of objects.', startRange(node)),
  );
  const z: Pos = { line: 1, column: 1, byte: 0 };
  const r: Range = { filename, start: z, end: z };
  return { root: { kind: 'object', attrs: [], range: r, start: 0, end: 0, openRange: r, closeRange: r }, diagnostics: p.diags };
}

// ---- expressions ------------------------------------------------------------------------------------------

/** How a property's value is read (see the file comment). */
type Mode = 'value' | 'literal' | 'expr' | 'exprOrList' | 'providers' | 'requiredProvider';

const EMPTY_VALUE_RANGE_KINDS = new Set(['object', 'array']);
void EMPTY_VALUE_RANGE_KINDS;

/** Moves every range of an AST parsed from position 1:1 (byte 0) to `start` (each Pos object once). */
function shiftAst(e: Expr, start: Pos): Expr {
  const seen = new Set<object>();
  const shiftPos = (p: Pos) => {
    if (seen.has(p)) return;
    seen.add(p);
    if (p.line === 1) p.column += start.column - 1;
    p.line += start.line - 1;
    p.byte += start.byte;
  };
  const walk = (o: unknown) => {
    if (!o || typeof o !== 'object' || o instanceof Value || seen.has(o)) return;
    const r = o as Record<string, unknown>;
    if (typeof r.filename === 'string' && r.start && r.end && typeof (r.start as Pos).byte === 'number') {
      seen.add(o);
      shiftPos(r.start as Pos);
      shiftPos(r.end as Pos);
      return;
    }
    seen.add(o);
    for (const v of Object.values(r)) walk(v);
  };
  walk(e);
  return e;
}

const unknownAst = (range: Range): Expr => ({ kind: 'literal', value: Value.unknown(), range });

/** A native expression parsed from a JSON string, starting at its opening quote (HCL's AsTraversal, ExprCall). */
function parsedString(n: JNode & { kind: 'string' }, diags: Diagnostic[]): Expression {
  const r = parseExpression(n.value, n.range.filename, { ...n.range.start });
  diags.push(...r.diagnostics);
  const ast = r.expr ?? unknownAst(n.range);
  const e: Expression = { offset: n.start + 1, range: ast.range, text: n.value, refs: r.expr ? astReferences(ast) : [], shape: 'other', ast };
  switch (ast.kind) {
    case 'scopeTraversal':
      e.shape = 'traversal';
      break;
    case 'literal':
      if (ast.value.isKnown && !ast.value.isNull && ast.value.type.kind === 'string') {
        e.shape = 'string';
        e.literal = ast.value.str;
      } else e.shape = 'literal';
      break;
    case 'template':
    case 'templateWrap':
      e.shape = 'template';
      break;
    case 'call':
      e.shape = 'call';
      e.callName = ast.name;
      break;
  }
  return e;
}

/** A JSON string as a template (interpolation allowed), or as plain text when `literal`. */
function stringExpr(n: JNode & { kind: 'string' }, literal: boolean, diags: Diagnostic[]): Expression {
  const base = { offset: n.start + 1, range: n.range, text: n.value };
  if (literal || !/[$%]\{/.test(n.value)) {
    return { ...base, refs: [], shape: 'string', literal: n.value, ast: { kind: 'literal', value: Value.string(n.value), range: n.range } };
  }
  const r = parseTemplate(n.value, n.range.filename);
  if (!r.expr) {
    // parseTemplate's diagnostics are placed from 1:1; place them inside the string as HCL does.
    for (const d of r.diagnostics) {
      const moved = { ...d };
      if (d.subject) {
        const s = { filename: n.range.filename, start: { ...d.subject.start }, end: { ...d.subject.end } };
        shiftAst({ kind: 'literal', value: Value.null(), range: s } as Expr, { ...n.range.start, column: n.range.start.column + 1, byte: n.range.start.byte + 1 });
        moved.subject = s;
        moved.context = undefined;
      }
      diags.push(moved);
    }
    return { ...base, refs: [], shape: 'template', ast: unknownAst(n.range) };
  }
  const ast = shiftAst(r.expr, { ...n.range.start, column: n.range.start.column + 1, byte: n.range.start.byte + 1 });
  if (ast.kind === 'literal' && ast.value.isKnown && ast.value.type.kind === 'string')
    return { ...base, refs: [], shape: 'string', literal: ast.value.str, ast: { ...ast, range: n.range } };
  return { ...base, refs: astReferences(ast), shape: 'template', ast: { ...ast, range: n.range } as Expr };
}

/** HCL's JSON expression: strings are templates (or plain), arrays tuples, objects objects with template keys. */
function valueExpr(n: JNode, ctx: Ctx, literal: boolean): Expression {
  const text = ctx.text.slice(n.start, n.end);
  switch (n.kind) {
    case 'string':
      return stringExpr(n, literal, ctx.diags);
    case 'number': {
      const num = Num.parse(n.text) ?? Num.fromFloat64(Number(n.text));
      return { offset: n.start, range: n.range, text, refs: [], shape: 'literal', literal: Number(n.text), ast: { kind: 'literal', value: Value.number(num), range: n.range } };
    }
    case 'bool':
      return { offset: n.start, range: n.range, text, refs: [], shape: 'literal', literal: n.value, ast: { kind: 'literal', value: Value.bool(n.value), range: n.range } };
    case 'null':
      return { offset: n.start, range: n.range, text, refs: [], shape: 'literal', literal: null, ast: { kind: 'literal', value: Value.null(T.Dynamic), range: n.range } };
    case 'array': {
      const elems = n.values.map((v) => valueExpr(v, ctx, literal));
      return {
        offset: n.start,
        range: n.range,
        text,
        refs: elems.flatMap((x) => x.refs),
        shape: 'tuple',
        elems,
        ast: { kind: 'tuple', elems: elems.map((x) => x.ast), range: n.range, openRange: n.openRange },
      };
    }
    case 'object': {
      const items = n.attrs.map((a) => ({
        key: stringExpr({ kind: 'string', value: a.name, range: a.nameRange, start: a.nameStart, end: a.nameStart }, literal, ctx.diags),
        value: valueExpr(a.value, ctx, literal),
      }));
      return {
        offset: n.start,
        range: n.range,
        text,
        refs: items.flatMap((x) => [...x.key.refs, ...x.value.refs]),
        shape: 'object',
        items,
        ast: { kind: 'object', items: items.map((x) => ({ key: x.key.ast, keyIsIdent: false, value: x.value.ast })), range: n.range, openRange: n.openRange },
      };
    }
    default:
      return { offset: n.start, range: n.range, text, refs: [], shape: 'other', ast: unknownAst(n.range) };
  }
}

function exprOf(n: JNode, mode: Mode, ctx: Ctx): Expression {
  switch (mode) {
    case 'value':
      return valueExpr(n, ctx, false);
    case 'literal':
      return valueExpr(n, ctx, true);
    case 'expr':
      return n.kind === 'string' ? parsedString(n, ctx.diags) : valueExpr(n, ctx, false);
    case 'exprOrList': {
      if (n.kind === 'string') return parsedString(n, ctx.diags);
      if (n.kind !== 'array') return valueExpr(n, ctx, false);
      const e = valueExpr(n, ctx, false);
      e.elems = n.values.map((v) => (v.kind === 'string' ? parsedString(v, ctx.diags) : valueExpr(v, ctx, false)));
      e.refs = e.elems.flatMap((x) => x.refs);
      e.ast = { kind: 'tuple', elems: e.elems.map((x) => x.ast), range: n.range, openRange: n.openRange };
      return e;
    }
    case 'providers': {
      if (n.kind !== 'object') return valueExpr(n, ctx, false);
      const e = valueExpr(n, ctx, false);
      e.items = n.attrs.map((a) => ({
        key: parsedString({ kind: 'string', value: a.name, range: a.nameRange, start: a.nameStart, end: a.nameStart }, ctx.diags),
        value: a.value.kind === 'string' ? parsedString(a.value, ctx.diags) : valueExpr(a.value, ctx, false),
      }));
      e.refs = [];
      return e;
    }
    case 'requiredProvider': {
      if (n.kind !== 'object') return valueExpr(n, ctx, true);
      const e = valueExpr(n, ctx, true);
      e.items = n.attrs.map((a, i) => ({ key: e.items![i].key, value: a.name === 'configuration_aliases' ? exprOf(a.value, 'exprOrList', ctx) : e.items![i].value }));
      return e;
    }
  }
}

// ---- bodies -----------------------------------------------------------------------------------------------

interface BodySchema {
  attrs?: Record<string, Mode>;
  blocks?: Record<string, { labels?: string[]; body: BodySchema }>;
  /** Other properties: attributes read as values ('value'), attributes kept for the provider's schema ('lazy'), or errors. */
  rest: 'value' | 'lazy' | 'error';
}

const VALUES: BodySchema = { rest: 'value' };
const LAZY: BodySchema = { rest: 'lazy' };
const CONDITION: BodySchema = { attrs: { condition: 'value', error_message: 'value' }, rest: 'error' };
const LIFECYCLE: BodySchema = {
  attrs: { create_before_destroy: 'value', prevent_destroy: 'value', ignore_changes: 'exprOrList', replace_triggered_by: 'exprOrList' },
  blocks: { precondition: { body: CONDITION }, postcondition: { body: CONDITION } },
  rest: 'error',
};
const PROVISIONER: BodySchema = { attrs: { when: 'expr', on_failure: 'expr' }, blocks: { connection: { body: VALUES } }, rest: 'lazy' };
const DYNAMIC: BodySchema = { attrs: { for_each: 'value', iterator: 'expr', labels: 'value' }, blocks: { content: { body: LAZY } }, rest: 'error' };
const RESOURCE: BodySchema = {
  attrs: { count: 'value', for_each: 'value', provider: 'expr', depends_on: 'exprOrList' },
  blocks: { lifecycle: { body: LIFECYCLE }, connection: { body: VALUES }, provisioner: { labels: ['type'], body: PROVISIONER }, dynamic: { labels: ['name'], body: DYNAMIC } },
  rest: 'lazy',
};
const FILE: BodySchema = {
  blocks: {
    terraform: {
      body: {
        attrs: { required_version: 'literal', experiments: 'exprOrList', language: 'expr' },
        blocks: {
          required_providers: { body: { rest: 'value' } },
          backend: { labels: ['type'], body: VALUES },
          cloud: { body: VALUES },
          provider_meta: { labels: ['provider'], body: VALUES },
        },
        rest: 'error',
      },
    },
    provider: { labels: ['name'], body: { attrs: { alias: 'literal', version: 'literal' }, rest: 'lazy' } },
    variable: {
      labels: ['name'],
      body: {
        attrs: { description: 'literal', default: 'literal', type: 'expr', sensitive: 'value', nullable: 'value', ephemeral: 'value' },
        blocks: { validation: { body: CONDITION } },
        rest: 'error',
      },
    },
    locals: { body: VALUES },
    output: {
      labels: ['name'],
      body: {
        attrs: { description: 'literal', value: 'value', sensitive: 'value', ephemeral: 'value', depends_on: 'exprOrList' },
        blocks: { precondition: { body: CONDITION } },
        rest: 'error',
      },
    },
    module: {
      labels: ['name'],
      body: { attrs: { source: 'literal', version: 'literal', count: 'value', for_each: 'value', depends_on: 'exprOrList', providers: 'providers' }, rest: 'value' },
    },
    resource: { labels: ['type', 'name'], body: RESOURCE },
    data: { labels: ['type', 'name'], body: RESOURCE },
    ephemeral: { labels: ['type', 'name'], body: RESOURCE },
    moved: { body: { attrs: { from: 'expr', to: 'expr' }, rest: 'error' } },
    import: { body: { attrs: { to: 'expr', id: 'value', identity: 'value', for_each: 'value', provider: 'expr' }, rest: 'error' } },
    removed: {
      body: {
        attrs: { from: 'expr' },
        blocks: { lifecycle: { body: { attrs: { destroy: 'value' }, rest: 'error' } }, provisioner: { labels: ['type'], body: PROVISIONER }, connection: { body: VALUES } },
        rest: 'error',
      },
    },
    check: { labels: ['name'], body: { blocks: { data: { labels: ['type', 'name'], body: RESOURCE }, assert: { body: CONDITION } }, rest: 'error' } },
  },
  rest: 'error',
};

interface Ctx {
  text: string;
  diags: Diagnostic[];
  /** Context strings for diagnostics (HCL json's navigation): innermost first. */
  contexts: { range: Range; text: string }[];
}

/** Attributes of provider-schema bodies, with their JSON values, until jsonBodyForSchema sees the schema. */
const lazyAttrs = new WeakMap<Attribute, { node: JNode; ctx: Ctx }>();

/** HCL's collectDeepAttrs: the properties of an object, or of each object of an array. */
function deepAttrs(v: JNode, ctx: Ctx, labelName?: string): JAttr[] {
  if (v.kind === 'null') return [];
  if (v.kind === 'object') return v.attrs;
  if (v.kind === 'array') {
    const out: JAttr[] = [];
    for (const ev of v.values) {
      if (ev.kind === 'object') out.push(...ev.attrs);
      else
        ctx.diags.push(
          error(
            'Incorrect JSON value type',
            labelName ? `A JSON object is required here, to specify ${labelName} labels for this block.` : 'A JSON object is required here, to define arguments and child blocks.',
            startRange(ev),
          ),
        );
    }
    return out;
  }
  ctx.diags.push(
    error(
      'Incorrect JSON value type',
      labelName
        ? `Either a JSON object or JSON array of objects is required here, to specify ${labelName} labels for this block.`
        : 'Either a JSON object or JSON array of objects is required here, to define arguments and child blocks.',
      startRange(v),
    ),
  );
  return [];
}

function missingItemRange(v: JNode): Range {
  if (v.kind === 'object') return v.closeRange;
  if (v.kind === 'array') return v.openRange;
  return startRange(v);
}

/** HCL's unpackBlock: labels from nested object properties, then one block per object (or array element). */
function unpackBlock(v: JNode, type: string, typeRange: Range, labelsLeft: string[], labels: string[], labelRanges: Range[], schema: BodySchema, ctx: Ctx, out: Block[]): void {
  if (labelsLeft.length > 0) {
    const props = deepAttrs(v, ctx, labelsLeft[0]);
    if (props.length === 0) {
      ctx.diags.push(error('Missing block label', `At least one object property is required, whose name represents the ${type} block's ${labelsLeft[0]}.`, startRange(v)));
      return;
    }
    for (const p of props) unpackBlock(p.value, type, typeRange, labelsLeft.slice(1), [...labels, p.name], [...labelRanges, p.nameRange], schema, ctx, out);
    return;
  }
  const one = (o: JNode, defRange: Range) => {
    out.push({
      type,
      typeRange,
      labels,
      labelRanges,
      openBraceRange: startRange(o),
      range: o.range,
      defRange,
      body: buildBody(o, schema, ctx),
    });
  };
  if (v.kind === 'null') return;
  if (v.kind === 'object') one(v, v.openRange);
  else if (v.kind === 'array') for (const e of v.values) one(e, v.openRange);
  else ctx.diags.push(error('Incorrect JSON value type', `Either a JSON object or a JSON array is required, representing the contents of one or more ${goQuote(type)} blocks.`, startRange(v)));
}

/** The JSON value of each attribute expression built here (jsonConstantValue). */
const exprNodes = new WeakMap<Expression, JNode>();

/**
 * The constant value Terraform's plan JSON shows for an expression from a `.tf.json` file: its JSON read without an
 * evaluation context (HCL's Value(nil): strings as written, "${...}" included). Undefined for other expressions.
 */
export function jsonConstantValue(e: Expression): Value | undefined {
  const n = exprNodes.get(e);
  return n ? literalValue(n) : undefined;
}

function attribute(a: JAttr, mode: Mode, ctx: Ctx): Attribute {
  const expr = exprOf(a.value, mode, ctx);
  exprNodes.set(expr, a.value);
  return { name: a.name, nameRange: a.nameRange, expr, range: rangeSpan(a.nameRange, a.value.range) };
}

function buildBody(v: JNode, schema: BodySchema, ctx: Ctx): Body {
  const attributes: Attribute[] = [];
  const blocks: Block[] = [];
  const body: Body = { attributes, blocks, range: v.range, endRange: missingItemRange(v) };
  if (v.kind !== 'object' && v.kind !== 'array' && v.kind !== 'null') {
    ctx.diags.push(error('Incorrect JSON value type', 'Either a JSON object or JSON array of objects is required here, to define arguments and child blocks.', startRange(v)));
    return body;
  }
  const props = deepAttrs(v, ctx);
  const suggestions = [...Object.keys(schema.attrs ?? {}), ...Object.keys(schema.blocks ?? {})];
  for (const p of props) {
    if (p.name === '//') continue;
    const mode = schema.attrs?.[p.name];
    const blk = schema.blocks?.[p.name];
    if (mode) attributes.push(attribute(p, mode, ctx));
    else if (blk) unpackBlock(p.value, p.name, p.nameRange, blk.labels ?? [], [], [], blk.body, ctx, blocks);
    else if (schema.rest === 'value') attributes.push(attribute(p, 'value', ctx));
    else if (schema.rest === 'lazy') {
      const a = attribute(p, 'value', ctx);
      lazyAttrs.set(a, { node: p.value, ctx });
      attributes.push(a);
    } else ctx.diags.push(extraneous(p, suggestions));
  }
  return body;
}

function extraneous(p: JAttr, suggestions: readonly string[]): Diagnostic {
  const s = suggestions.find((c) => levenshtein(p.name, c) < 3);
  return error('Extraneous JSON object property', `No argument or block type is named ${goQuote(p.name)}.${s ? ` Did you mean ${goQuote(s)}?` : ''}`, p.nameRange, {
    context: p.nameRange,
  });
}

/** HCL json's navigation: the dotted path of the objects and arrays enclosing each offset, innermost first. */
function collectContexts(v: JNode, path: string, out: { range: Range; text: string }[]): void {
  const children: [string, JNode][] = v.kind === 'object' ? v.attrs.map((a) => [`.${a.name}`, a.value]) : v.kind === 'array' ? v.values.map((e, i) => [`[${i}]`, e]) : [];
  for (const [step, c] of children) {
    if (c.kind !== 'object' && c.kind !== 'array') continue;
    const p = path + step;
    collectContexts(c, p, out);
    out.push({ range: c.range, text: p.startsWith('.') ? p.slice(1) : p });
  }
}

/**
 * One `.tf.json` file: its syntax diagnostics, its diagnostic contexts and its top-level body in hclbody's form
 * (blocks of Terraform's file schema; unknown top-level properties are "Extraneous JSON object property").
 */
export function jsonConfigFile(text: string, filename: string): { body: Body; diagnostics: Diagnostic[]; contexts: { range: Range; text: string }[] } {
  const parsed = parseJsonFile(text, filename);
  const ctx: Ctx = { text, diags: parsed.diagnostics, contexts: [] };
  // Terraform decodes what parsed (invalid values stand where the syntax failed). Its loader reads the root body
  // four times (two version/experiment sniffs, then Content, which flattens it twice), so each array element
  // that is not an object is reported four times over, as terraform does.
  for (let i = 0; i < 3; i++) deepAttrs(parsed.root, ctx);
  const body = buildBody(parsed.root, FILE, ctx);
  collectContexts(parsed.root, '', ctx.contexts);
  return { body, diagnostics: ctx.diags, contexts: ctx.contexts };
}

/**
 * A body built from JSON for a provider's schema (resource, data, provider, provisioner, dynamic content), seen
 * through that schema as HCL's JSON Body.Content sees it: properties naming nested block types become blocks,
 * "//" is a comment, and properties the schema does not name are "Extraneous JSON object property". Any other body
 * is returned as it is. The result is kept per body; its diagnostics are added to `diags` on every call.
 */
export function jsonBodyForSchema(body: Body, schema: SchemaBlock, diags: Diagnostic[]): Body {
  if (!body.attributes.some((a) => lazyAttrs.has(a))) return body;
  const cached = reshaped.get(body);
  if (cached && cached.schema === schema) {
    diags.push(...cached.diags);
    return cached.body;
  }
  const own: Diagnostic[] = [];
  const attributes: Attribute[] = [];
  const blocks: Block[] = [...body.blocks];
  const suggestions = [...Object.keys(schema.attributes), ...Object.keys(schema.blockTypes)];
  for (const a of body.attributes) {
    const lazy = lazyAttrs.get(a);
    if (!lazy || a.name in schema.attributes) {
      attributes.push(a);
      continue;
    }
    if (a.name in schema.blockTypes) {
      const ctx: Ctx = { text: lazy.ctx.text, diags: own, contexts: [] };
      unpackBlock(lazy.node, a.name, a.nameRange, [], [], [], LAZY, ctx, blocks);
      continue;
    }
    own.push(extraneous({ name: a.name, nameRange: a.nameRange, nameStart: 0, value: lazy.node }, suggestions));
  }
  const out: Body = { attributes, blocks, range: body.range, endRange: body.endRange };
  reshaped.set(body, { schema, body: out, diags: own });
  diags.push(...own);
  return out;
}
const reshaped = new WeakMap<Body, { schema: SchemaBlock; body: Body; diags: Diagnostic[] }>();

/**
 * A `.tfvars.json` file as Terraform reads it (JustAttributes of a JSON body, values taken without a context, so
 * strings are literal): each property's value and ranges, or HCL's syntax diagnostics.
 */
export function jsonVariableValues(
  text: string,
  filename: string,
): { values: { name: string; nameRange: Range; range: Range; value: Value }[]; diagnostics: Diagnostic[] } {
  const parsed = parseJsonFile(text, filename);
  if (parsed.diagnostics.length > 0) return { values: [], diagnostics: parsed.diagnostics };
  const root = parsed.root;
  if (root.kind !== 'object')
    return { values: [], diagnostics: [error('Incorrect JSON value type', 'A JSON object is required here, setting the arguments for this block.', root.openRange)] };
  const diags: Diagnostic[] = [];
  const seen = new Map<string, Range>();
  const values: { name: string; nameRange: Range; range: Range; value: Value }[] = [];
  for (const a of root.attrs) {
    if (a.name === '//') continue;
    const prev = seen.get(a.name);
    const range = rangeSpan(a.nameRange, a.value.range);
    if (prev) {
      diags.push(error('Duplicate attribute definition', `The argument ${goQuote(a.name)} was already set at ${rangeText(prev)}.`, a.nameRange));
      continue;
    }
    seen.set(a.name, range);
    values.push({ name: a.name, nameRange: a.nameRange, range: a.value.range, value: literalValue(a.value) });
  }
  return { values, diagnostics: diags };
}

function rangeText(r: Range): string {
  return `${r.filename}:${r.start.line},${r.start.column}-${r.end.line === r.start.line ? '' : r.end.line + ','}${r.end.column}`;
}

/** A JSON value evaluated without a context (HCL's Value(nil)). */
function literalValue(n: JNode): Value {
  switch (n.kind) {
    case 'string':
      return Value.string(n.value);
    case 'number':
      return Value.number(Num.parse(n.text) ?? Num.fromFloat64(Number(n.text)));
    case 'bool':
      return Value.bool(n.value);
    case 'null':
      return Value.null(T.Dynamic);
    case 'array':
      return Value.tuple(n.values.map(literalValue));
    case 'object':
      return Value.object(new Map(n.attrs.map((a) => [a.name, literalValue(a.value)] as const)));
    default:
      return Value.unknown();
  }
}
