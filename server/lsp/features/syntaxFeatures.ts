// Features computed from one document's syntax tree alone: textDocument/foldingRange and
// textDocument/semanticTokens (full and range).
//
// Folding: every block, multi-line object, tuple, function-call argument list and heredoc folds from its
// first line to the line before its closing line (which stays visible, as VS Code expects); runs of two or
// more line comments and multi-line block comments fold as comments.
//
// Semantic tokens use only standard LSP token types and modifiers, so every theme colours them:
// block types and `for`/`in`/`if`, `true`/`false`/`null` are `keyword`; a resource or data source type label
// is `type`; the name labels of blocks are `variable` + `declaration` (a dynamic block's label, naming the
// nested block type, is `property`); argument names and attribute steps (`.id`) are `property`; reference
// roots `var`, `local`, `module`, `data`, `path`, `terraform`, `count`, `each`, `self` are `namespace`, a
// resource type used as a root is `type`, other roots (for-expression and iterator symbols) `parameter`;
// function names are `function` + `defaultLibrary`; numbers `number`; comments `comment` (one token per line).

import type { FoldingRange, Range, SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver';
import type { SyntaxNode, Tree } from '../../syntax/treesitter';
import { RESERVED_ROOTS } from './symbols';

const MAX_DEPTH = 256;

export function foldingRanges(tree: Tree, text: string): FoldingRange[] {
  const out: FoldingRange[] = [];
  const lines = text.split('\n');
  const visit = (n: SyntaxNode, depth: number) => {
    if (depth > MAX_DEPTH) return;
    const s = n.startPosition.row;
    const e = n.endPosition.row;
    switch (n.type) {
      case 'block':
      case 'object':
      case 'tuple':
      case 'function_call':
      case 'heredoc_template':
      case 'for_tuple_expr':
      case 'for_object_expr': {
        // The closing line stays visible; a heredoc's closing marker too.
        let end = e - 1;
        if (n.type === 'function_call') {
          const close = n.children.find((c) => c?.type === ')');
          end = close ? close.startPosition.row - 1 : e - 1;
        }
        if (end > s) out.push({ startLine: s, endLine: end });
        break;
      }
      case 'comment':
        if (e > s) out.push({ startLine: s, endLine: e, kind: 'comment' });
        break;
    }
    for (const c of n.namedChildren) if (c && c.endPosition.row > c.startPosition.row) visit(c, depth + 1);
  };
  visit(tree.rootNode, 0);
  // Runs of line comments (each on a line of its own).
  let runStart = -1;
  for (let i = 0; i <= lines.length; i++) {
    const t = i < lines.length ? lines[i].trimStart() : '';
    const isComment = i < lines.length && (t.startsWith('#') || t.startsWith('//'));
    if (isComment && runStart < 0) runStart = i;
    if (!isComment && runStart >= 0) {
      if (i - 1 > runStart) out.push({ startLine: runStart, endLine: i - 1, kind: 'comment' });
      runStart = -1;
    }
  }
  return out.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
}

export const TOKEN_TYPES = ['keyword', 'type', 'variable', 'property', 'function', 'namespace', 'parameter', 'number', 'comment'] as const;
export const TOKEN_MODIFIERS = ['declaration', 'defaultLibrary', 'readonly'] as const;
export const LEGEND: SemanticTokensLegend = { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [...TOKEN_MODIFIERS] };

type TokType = (typeof TOKEN_TYPES)[number];
type TokMod = (typeof TOKEN_MODIFIERS)[number];

interface Tok {
  line: number;
  char: number;
  length: number;
  type: number;
  mods: number;
}

const TYPE_LABEL_BLOCKS = new Set(['resource', 'data', 'ephemeral']);

export function semanticTokens(tree: Tree, text: string, range?: Range): SemanticTokens {
  const toks: Tok[] = [];
  const lines = text.split('\n');
  const push = (n: SyntaxNode, type: TokType, ...mods: TokMod[]) => {
    const s = n.startPosition;
    const e = n.endPosition;
    let m = 0;
    for (const x of mods) m |= 1 << TOKEN_MODIFIERS.indexOf(x);
    const ti = TOKEN_TYPES.indexOf(type);
    if (s.row === e.row) {
      if (e.column > s.column) toks.push({ line: s.row, char: s.column, length: e.column - s.column, type: ti, mods: m });
      return;
    }
    // Multi-line (block comments): one token per line.
    for (let l = s.row; l <= e.row; l++) {
      const from = l === s.row ? s.column : 0;
      const to = l === e.row ? e.column : (lines[l] ?? '').length;
      if (to > from) toks.push({ line: l, char: from, length: to - from, type: ti, mods: m });
    }
  };
  const inRange = (n: SyntaxNode): boolean =>
    !range || !(n.endPosition.row < range.start.line || (n.endPosition.row === range.start.line && n.endPosition.column <= range.start.character) || n.startPosition.row > range.end.line || (n.startPosition.row === range.end.line && n.startPosition.column >= range.end.character));

  const visit = (n: SyntaxNode, depth: number) => {
    if (depth > MAX_DEPTH || !inRange(n)) return;
    switch (n.type) {
      case 'block': {
        let first = true;
        let labelIndex = 0;
        let blockType = '';
        for (const c of n.children) {
          if (!c) continue;
          if (c.type === 'identifier' && first) {
            push(c, 'keyword');
            blockType = c.text;
            first = false;
          } else if ((c.type === 'identifier' || c.type === 'string_lit') && !first && labelIndex >= 0) {
            const target = c.type === 'string_lit' ? (c.namedChildren.find((x) => x?.type === 'template_literal') ?? null) : c;
            if (target) {
              if (TYPE_LABEL_BLOCKS.has(blockType) && labelIndex === 0) push(target, 'type');
              else if (blockType === 'dynamic') push(target, 'property');
              else push(target, 'variable', 'declaration');
            }
            labelIndex++;
          } else if (c.type === 'block_start') labelIndex = -1;
          else if (c.type === 'body' || c.type === 'comment') visit(c, depth + 1);
        }
        return;
      }
      case 'attribute': {
        for (const c of n.children) {
          if (!c) continue;
          if (c.type === 'identifier') push(c, 'property');
          else visit(c, depth + 1);
        }
        return;
      }
      case 'object_elem': {
        const key = n.namedChildren[0];
        const keyVar = key?.namedChildren.length === 1 && key.namedChildren[0]?.type === 'variable_expr' ? key.namedChildren[0] : undefined;
        for (const c of n.namedChildren) {
          if (!c) continue;
          if (c === key && keyVar) push(keyVar, 'property');
          else visit(c, depth + 1);
        }
        return;
      }
      case 'variable_expr': {
        const id = n.namedChildren[0];
        if (!id) return;
        if (RESERVED_ROOTS.has(id.text)) push(id, 'namespace');
        else if (n.nextSibling?.type === 'get_attr') push(id, 'type');
        else push(id, 'parameter');
        return;
      }
      case 'get_attr': {
        const id = n.namedChildren.find((x) => x?.type === 'identifier');
        if (id) push(id, 'property');
        return;
      }
      case 'function_call': {
        for (const c of n.children) {
          if (!c) continue;
          if (c.type === 'identifier') push(c, 'function', 'defaultLibrary');
          else visit(c, depth + 1);
        }
        return;
      }
      case 'for_intro':
      case 'for_cond': {
        for (const c of n.children) {
          if (!c) continue;
          if (c.type === 'for' || c.type === 'in' || c.type === 'if') push(c, 'keyword');
          else if (c.type === 'identifier') push(c, 'parameter', 'declaration');
          else visit(c, depth + 1);
        }
        return;
      }
      case 'numeric_lit':
        push(n, 'number');
        return;
      case 'bool_lit':
      case 'null_lit':
        push(n, 'keyword');
        return;
      case 'comment':
        push(n, 'comment');
        return;
    }
    for (const c of n.children) if (c) visit(c, depth + 1);
  };
  visit(tree.rootNode, 0);
  toks.sort((a, b) => a.line - b.line || a.char - b.char);
  const kept = range
    ? toks.filter((t) => {
        const endsBefore = t.line < range.start.line || (t.line === range.start.line && t.char + t.length <= range.start.character);
        const startsAfter = t.line > range.end.line || (t.line === range.end.line && t.char >= range.end.character);
        return !endsBefore && !startsAfter;
      })
    : toks;
  const data: number[] = [];
  let pl = 0;
  let pc = 0;
  for (const t of kept) {
    data.push(t.line - pl, t.line === pl ? t.char - pc : t.char, t.length, t.type, t.mods);
    pl = t.line;
    pc = t.char;
  }
  return { data };
}
