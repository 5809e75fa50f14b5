// textDocument/documentSymbol: the outline of a document: its blocks (named as written, with their labels)
// and attributes, nested as in the file. Built from the document's syntax tree, whose points are already
// 0-based rows and UTF-16 columns, i.e. LSP positions. Partial trees (syntax errors) give partial outlines.

import { SymbolKind, type DocumentSymbol, type DocumentSymbolParams, type Range } from 'vscode-languageserver';
import type { SyntaxNode } from '../../syntax/treesitter';
import type { Session } from '../session';

/** Deeper nesting is left out of the outline (pathological inputs nest thousands deep). */
const MAX_DEPTH = 64;

const KINDS: Record<string, SymbolKind> = {
  resource: SymbolKind.Class,
  data: SymbolKind.Class,
  ephemeral: SymbolKind.Class,
  module: SymbolKind.Module,
  provider: SymbolKind.Package,
  variable: SymbolKind.Variable,
  output: SymbolKind.Interface,
  locals: SymbolKind.Namespace,
  terraform: SymbolKind.Namespace,
  moved: SymbolKind.Event,
  import: SymbolKind.Event,
  removed: SymbolKind.Event,
  check: SymbolKind.Event,
};

export function documentSymbol(session: Session, params: DocumentSymbolParams): DocumentSymbol[] {
  const doc = session.documents.get(params.textDocument.uri);
  if (!doc) return [];
  const body = doc.tree.rootNode.children.find((c) => c?.type === 'body');
  return body ? bodySymbols(body, 0) : [];
}

function range(n: SyntaxNode): Range {
  return {
    start: { line: n.startPosition.row, character: n.startPosition.column },
    end: { line: n.endPosition.row, character: n.endPosition.column },
  };
}

function bodySymbols(body: SyntaxNode, depth: number): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  for (const c of body.namedChildren) {
    if (!c) continue;
    if (c.type === 'block') {
      const s = blockSymbol(c, depth);
      if (s) out.push(s);
    } else if (c.type === 'attribute') {
      const name = c.namedChildren.find((x) => x?.type === 'identifier');
      if (!name || name.text === '') continue;
      out.push({ name: name.text, kind: SymbolKind.Property, range: range(c), selectionRange: range(name) });
    }
  }
  return out;
}

function blockSymbol(block: SyntaxNode, depth: number): DocumentSymbol | undefined {
  const parts: string[] = [];
  let first: SyntaxNode | undefined;
  let last: SyntaxNode | undefined;
  let inner: SyntaxNode | undefined;
  for (const c of block.namedChildren) {
    if (!c) continue;
    if (c.type === 'identifier' || c.type === 'string_lit') {
      if (inner) continue;
      parts.push(c.text);
      first ??= c;
      last = c;
    } else if (c.type === 'body') inner = c;
  }
  if (!first || !last || parts[0] === '') return undefined;
  const sel = range(first);
  sel.end = range(last).end;
  const children = inner && depth + 1 < MAX_DEPTH ? bodySymbols(inner, depth + 1) : [];
  const kind = depth === 0 ? (KINDS[parts[0]] ?? SymbolKind.Struct) : SymbolKind.Struct;
  return { name: parts.join(' '), kind, range: range(block), selectionRange: sel, children };
}
