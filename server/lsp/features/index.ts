// Editing features (issue 7 §3): completion, signature help, definition/references, rename, workspace
// symbols, folding, semantic tokens, code actions, range formatting. server.ts calls registerEditing once; initialize.ts merges
// editingCapabilities into the server's capabilities.
//
// Each handler is wrapped by guard() (log.ts): a bug is logged and answered with the fallback. The features
// share one Workspace (workspace.ts): per-file indexes of open documents and module files on disk, kept on
// the main thread and re-built per changed file only, independent of the directory analysis worker.

import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  SymbolKind,
  type Connection,
  type InitializeParams,
  type SemanticTokens,
  type ServerCapabilities,
  type SymbolInformation,
  type WorkspaceSymbolParams,
} from 'vscode-languageserver';
import { describeError, guard } from '../log';
import type { Session } from '../session';
import { codeActions } from './codeActions';
import { rangeFormatting } from './rangeFormatting';
import { completion, signatureHelp } from './completion';
import { definition, indexed, prepareRename, references, rename } from './navigation';
import { foldingRanges, LEGEND, semanticTokens } from './syntaxFeatures';
import { Workspace } from './workspace';
import { providerSchemas } from './schemas';
import type { DeclKind } from './fileIndex';

let roots: string[] = [];

export function editingCapabilities(params: InitializeParams): Partial<ServerCapabilities> {
  roots = [];
  for (const f of params.workspaceFolders ?? []) {
    try {
      roots.push(fileURLToPath(f.uri));
    } catch {
      // not a file: URI
    }
  }
  if (!roots.length && params.rootUri) {
    try {
      roots.push(fileURLToPath(params.rootUri));
    } catch {
      // not a file: URI
    }
  }
  return {
    completionProvider: { triggerCharacters: ['.', '"', '='], resolveProvider: false },
    signatureHelpProvider: { triggerCharacters: ['(', ','], retriggerCharacters: [','] },
    definitionProvider: true,
    referencesProvider: true,
    renameProvider: { prepareProvider: true },
    workspaceSymbolProvider: true,
    foldingRangeProvider: true,
    semanticTokensProvider: { legend: LEGEND, full: true, range: true },
    codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    documentRangeFormattingProvider: true,
  };
}

const SYMBOL_KINDS: Record<DeclKind, SymbolKind> = {
  resource: SymbolKind.Class,
  data: SymbolKind.Class,
  ephemeral: SymbolKind.Class,
  module: SymbolKind.Module,
  provider: SymbolKind.Package,
  variable: SymbolKind.Variable,
  output: SymbolKind.Interface,
  local: SymbolKind.Constant,
  check: SymbolKind.Event,
};

/** workspace/symbol: declarations of every module directory under the workspace folders and of open documents. */
export function workspaceSymbols(ws: Workspace, p: WorkspaceSymbolParams): SymbolInformation[] {
  const q = p.query.toLowerCase();
  const out: SymbolInformation[] = [];
  for (const dir of ws.symbolDirs()) {
    for (const { file, decl } of ws.module(dir).decls) {
      const name =
        decl.kind === 'resource'
          ? `${decl.type}.${decl.name}`
          : decl.kind === 'data' || decl.kind === 'ephemeral'
            ? `${decl.kind}.${decl.type}.${decl.name}`
            : `${decl.kind === 'variable' ? 'var' : decl.kind}.${decl.name}`;
      if (q && !name.toLowerCase().includes(q)) continue;
      out.push({ name, kind: SYMBOL_KINDS[decl.kind], location: { uri: file.uri, range: decl.range }, containerName: dir });
      if (out.length >= 1000) return out;
    }
  }
  return out;
}

/** Runs `fn` at once when there is nothing to wait for, else after `pending`. */
function after<R>(pending: Promise<void> | undefined, fn: () => R): R | Promise<R> {
  return pending ? pending.then(fn) : fn();
}

export function registerEditing(connection: Connection, session: Session): void {
  const ws = new Workspace(session);
  ws.roots = roots;
  const log = session.log;
  // Start the built-in providers' GetProviderSchema now, so the first completion need not wait for it.
  void providerSchemas().catch((e: unknown) => log.error(`provider schemas for completion failed: ${describeError(e)}`));
  connection.onCompletion(guard(log, 'completion', () => null, (p) => {
    ws.roots = roots;
    return completion(ws, p);
  }));
  connection.onSignatureHelp(guard(log, 'signatureHelp', () => null, (p) => signatureHelp(ws, p)));
  connection.onDefinition(guard(log, 'definition', () => [], (p) => after(indexed(ws, p.textDocument.uri), () => definition(ws, p))));
  connection.onReferences(guard(log, 'references', () => [], (p) => after(indexed(ws, p.textDocument.uri), () => references(ws, p))));
  connection.onPrepareRename(guard(log, 'prepareRename', () => null, (p) => after(indexed(ws, p.textDocument.uri), () => prepareRename(ws, p))));
  connection.onRenameRequest(guard(log, 'rename', () => null, (p) => after(indexed(ws, p.textDocument.uri), () => rename(ws, p))));
  connection.onWorkspaceSymbol(guard(log, 'workspaceSymbol', () => [], (p) => {
    ws.roots = roots;
    return workspaceSymbols(ws, p);
  }));
  connection.onFoldingRanges(guard(log, 'foldingRange', () => [], (p) => {
    const doc = session.documents.get(p.textDocument.uri);
    return doc ? foldingRanges(doc.tree, doc.text) : [];
  }));
  connection.languages.semanticTokens.on(guard(log, 'semanticTokens', (): SemanticTokens => ({ data: [] }), (p) => {
    const doc = session.documents.get(p.textDocument.uri);
    return doc ? semanticTokens(doc.tree, doc.text) : { data: [] };
  }));
  connection.languages.semanticTokens.onRange(guard(log, 'semanticTokens/range', (): SemanticTokens => ({ data: [] }), (p) => {
    const doc = session.documents.get(p.textDocument.uri);
    return doc ? semanticTokens(doc.tree, doc.text, p.range) : { data: [] };
  }));
  connection.onCodeAction(guard(log, 'codeAction', () => [], (p) => codeActions(ws, p)));
  connection.onDocumentRangeFormatting(guard(log, 'rangeFormatting', () => [], (p) => rangeFormatting(session, ws, p)));
}
