// What one configuration file declares and references, extracted from its syntax tree: the blocks (type,
// labels, arguments, nested blocks, with LSP ranges), the named declarations (variables, locals, outputs,
// resources, data sources, module calls, providers, checks) and every reference traversal (`var.x`,
// `local.y`, `module.m.out`, `data.t.n`, `type.name`, ...).
//
// Tree-sitter points are 0-based rows and UTF-16 columns, i.e. LSP positions, so ranges are taken as they
// are. The index is plain data (no tree nodes), so the tree can be deleted right after indexing. Partial
// trees (syntax errors) give partial indexes.

import type { Position, Range } from 'vscode-languageserver';
import type { SyntaxNode, Tree } from '../../syntax/treesitter';
import { intern } from '../../lang/intern';

export interface Named {
  name: string;
  /** Range of the name's text (inside the quotes for a quoted label). */
  range: Range;
}

export interface AttrInfo {
  name: string;
  nameRange: Range;
  range: Range;
  /** Range and text of the value expression. */
  valueRange?: Range;
  valueText?: string;
}

export interface BlockInfo {
  type: string;
  typeRange: Range;
  labels: Named[];
  range: Range;
  /** Position of the opening `{` and of the closing `}` (undefined when missing). */
  open?: Position;
  close?: Position;
  attrs: AttrInfo[];
  blocks: BlockInfo[];
}

export type DeclKind = 'variable' | 'local' | 'output' | 'resource' | 'data' | 'module' | 'provider' | 'check' | 'ephemeral';

export interface Decl {
  kind: DeclKind;
  /** The name: a variable's, a resource's second label, a provider's local name. */
  name: string;
  /** Resource and data source type. */
  type?: string;
  nameRange: Range;
  typeRange?: Range;
  /** The whole block (or the `name = value` line for a local). */
  range: Range;
  /** The declaring block (for a local: the `locals` block). */
  block: BlockInfo;
}

export interface Ref {
  /** The traversal's root name (`var`, `local`, `module`, `data`, a resource type, ...). */
  root: Named;
  /** The `.name` steps directly after the root, up to the first index or splat. */
  parts: Named[];
  /** Range of the whole traversal as far as it was read. */
  range: Range;
}

export interface FileIndex {
  blocks: BlockInfo[];
  /** Top-level arguments (the variable values of a .tfvars file). */
  attrs: AttrInfo[];
  decls: Decl[];
  refs: Ref[];
}

/** Deeper nesting is not indexed (pathological inputs nest thousands deep). */
const MAX_DEPTH = 64;

export function rangeOf(n: SyntaxNode): Range {
  const a = n.startPosition;
  const b = n.endPosition;
  return { start: position(a.row, a.column), end: position(b.row, b.column) };
}

/**
 * While indexTree builds an index: its positions, one object per place, and its names, one string per text (ranges
 * that meet share their end points, and the same few names recur; the main thread keeps the index of every open
 * file). Index data is never modified, so sharing is safe.
 */
let positions: Map<number, Position> | undefined;
let names: Map<string, string> | undefined;

function position(line: number, character: number): Position {
  if (!positions || character >= 0x100000) return { line, character };
  const k = line * 0x100000 + character;
  let p = positions.get(k);
  if (!p) positions.set(k, (p = { line, character }));
  return p;
}

function nameOf(n: SyntaxNode): string {
  return names ? intern(names, n.text, Infinity) : n.text;
}

function labelOf(n: SyntaxNode): Named {
  if (n.type === 'identifier') return { name: nameOf(n), range: rangeOf(n) };
  // string_lit: quote, template_literal?, quote.
  const lit = n.namedChildren.find((c) => c?.type === 'template_literal');
  if (lit) return { name: nameOf(lit), range: rangeOf(lit) };
  const r = rangeOf(n);
  const inner = { line: r.start.line, character: r.start.character + 1 };
  return { name: '', range: { start: inner, end: inner } };
}

function blockOf(node: SyntaxNode, depth: number, refs: Ref[]): BlockInfo | undefined {
  let type: SyntaxNode | undefined;
  const labels: Named[] = [];
  let body: SyntaxNode | undefined;
  let open: Position | undefined;
  let close: Position | undefined;
  for (const c of node.children) {
    if (!c) continue;
    if (c.type === 'identifier' && !type) type = c;
    else if ((c.type === 'identifier' || c.type === 'string_lit') && !open) labels.push(labelOf(c));
    else if (c.type === 'block_start') open = rangeOf(c).start;
    else if (c.type === 'block_end') close = rangeOf(c).start;
    else if (c.type === 'body') body = c;
  }
  if (!type) return undefined;
  const info: BlockInfo = { type: nameOf(type), typeRange: rangeOf(type), labels, range: rangeOf(node), open, close, attrs: [], blocks: [] };
  if (body && depth < MAX_DEPTH) bodyOf(body, info, depth + 1, refs);
  return info;
}

function bodyOf(body: SyntaxNode, into: BlockInfo | { attrs: AttrInfo[]; blocks: BlockInfo[] }, depth: number, refs: Ref[]): void {
  for (const c of body.namedChildren) {
    if (!c) continue;
    if (c.type === 'block') {
      const b = blockOf(c, depth, refs);
      if (b) into.blocks.push(b);
    } else if (c.type === 'attribute') {
      const name = c.namedChildren.find((x) => x?.type === 'identifier');
      const expr = c.namedChildren.find((x) => x?.type === 'expression');
      if (!name) continue;
      into.attrs.push({
        name: nameOf(name),
        nameRange: rangeOf(name),
        range: rangeOf(c),
        ...(expr ? { valueRange: rangeOf(expr), valueText: expr.text } : {}),
      });
      if (expr) collectRefs(expr, refs);
    }
  }
}

/** Adds the traversals under `n` to `refs` (one query for all variable_expr nodes: far cheaper than a walk). */
function collectRefs(n: SyntaxNode, refs: Ref[]): void {
  for (const v of n.descendantsOfType('variable_expr')) if (v) addRef(v, refs);
}

function addRef(n: SyntaxNode, refs: Ref[]): void {
  const id = n.firstNamedChild;
  // Error recovery inserts zero-length (MISSING) identifiers; they name nothing.
  if (!id || id.text === '' || isBareKey(n)) return;
  const parts: Named[] = [];
  const start = rangeOf(n).start;
  let end = rangeOf(n).end;
  for (let s = n.nextSibling; s; s = s.nextSibling) {
    if (s.type !== 'get_attr') break;
    const pid = s.lastNamedChild;
    if (!pid || pid.type !== 'identifier' || pid.text === '') break;
    parts.push({ name: nameOf(pid), range: rangeOf(pid) });
    end = rangeOf(s).end;
  }
  refs.push({ root: { name: nameOf(id), range: rangeOf(id) }, parts, range: { start, end } });
}

/**
 * An object key that is a bare identifier (`{ env = ... }`): HCL reads it as the literal string, not as a reference
 * (a key with steps, `{ a.b = ... }`, or in parentheses is an expression).
 */
function isBareKey(v: SyntaxNode): boolean {
  const e = v.parent;
  if (!e || e.type !== 'expression' || e.namedChildCount !== 1) return false;
  const elem = e.parent;
  return !!elem && elem.type === 'object_elem' && elem.firstNamedChild?.equals(e) === true;
}

/** Collects traversals in nested blocks too (blockOf only collects per body). */
export function indexTree(tree: Tree): FileIndex {
  const refs: Ref[] = [];
  const root = { attrs: [] as AttrInfo[], blocks: [] as BlockInfo[] };
  const body = tree.rootNode.children.find((c) => c?.type === 'body');
  positions = new Map();
  names = new Map();
  try {
    if (body) bodyOf(body, root, 0, refs);
  } finally {
    positions = undefined;
    names = undefined;
  }
  const decls: Decl[] = [];
  for (const b of root.blocks) declsOf(b, decls);
  return { blocks: root.blocks, attrs: root.attrs, decls, refs };
}

function declsOf(b: BlockInfo, out: Decl[]): void {
  const l0 = b.labels[0];
  const l1 = b.labels[1];
  switch (b.type) {
    case 'variable':
    case 'output':
    case 'module':
    case 'provider':
    case 'check':
      if (l0) out.push({ kind: b.type, name: l0.name, nameRange: l0.range, range: b.range, block: b });
      if (b.type === 'check') for (const nb of b.blocks) if (nb.type === 'data') declsOf(nb, out);
      break;
    case 'resource':
    case 'data':
    case 'ephemeral':
      if (l0 && l1) out.push({ kind: b.type, name: l1.name, type: l0.name, nameRange: l1.range, typeRange: l0.range, range: b.range, block: b });
      break;
    case 'locals':
      for (const a of b.attrs) out.push({ kind: 'local', name: a.name, nameRange: a.nameRange, range: a.range, block: b });
      break;
  }
}

/** The innermost block of `blocks` (searched recursively) whose range contains `pos`, with its ancestors. */
export function blockPathAt(blocks: readonly BlockInfo[], pos: Position): BlockInfo[] {
  const out: BlockInfo[] = [];
  let level: readonly BlockInfo[] = blocks;
  for (;;) {
    const b = level.find((x) => contains(x.range, pos));
    if (!b) return out;
    out.push(b);
    level = b.blocks;
  }
}

export function contains(r: Range, p: Position): boolean {
  return before(r.start, p) && before(p, r.end);
}

/** a <= b */
export function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}
