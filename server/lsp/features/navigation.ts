// textDocument/definition, textDocument/references, textDocument/prepareRename and textDocument/rename for
// variables, locals, outputs, resources, data sources and module calls (symbols.ts finds the occurrences).
//
// Renaming a managed resource or a module call also appends a `moved { from = old to = new }` block after
// the renamed block, so that the state follows the new address (Terraform's refactoring moves). A rename to
// a name that is not a valid identifier, or that is already declared, is refused with an error.

import {
  ResponseError,
  ErrorCodes,
  type DefinitionParams,
  type Location,
  type Position,
  type PrepareRenameParams,
  type Range,
  type ReferenceParams,
  type RenameParams,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import { findDecl, occurrences, targetAt, targetLabel, type Target } from './symbols';
import type { IndexedFile, Workspace } from './workspace';
import { blockPathAt, contains, type BlockInfo } from './fileIndex';

function fileOf(ws: Workspace, uri: string): IndexedFile | undefined {
  const doc = ws.session.documents.get(uri);
  if (!doc?.path) return undefined;
  return ws.file(doc.path);
}

/** A promise to wait for until the module of the document is indexed (see Workspace.ready), or undefined. */
export function indexed(ws: Workspace, uri: string): Promise<void> | undefined {
  const doc = ws.session.documents.get(uri);
  return doc?.dir ? ws.ready(doc.dir) : undefined;
}

export function definition(ws: Workspace, p: DefinitionParams): Location[] {
  const file = fileOf(ws, p.textDocument.uri);
  if (!file) return [];
  const at = targetAt(ws, file, p.position);
  if (!at) {
    const src = moduleSource(ws, file, p.position);
    return src.length ? src : providerConfig(ws, file, p.position);
  }
  const d = findDecl(ws.module(at.target.dir), at.target);
  return d ? [{ uri: d.file.uri, range: d.decl.nameRange }] : [];
}

/** On `provider = name.alias` of a resource or data source: the provider block it selects. */
function providerConfig(ws: Workspace, file: IndexedFile, pos: Position): Location[] {
  const path = blockPathAt(file.index.blocks, pos);
  const top = path[0];
  if (!top || path.length !== 1 || !['resource', 'data', 'ephemeral'].includes(top.type)) return [];
  const attr = top.attrs.find((a) => a.name === 'provider' && a.valueRange && contains(a.valueRange, pos));
  const m = attr?.valueText?.match(/^([A-Za-z_][\w-]*)(?:\.([A-Za-z_][\w-]*))?$/);
  if (!m) return [];
  const dir = ws.dirOf(file.path);
  for (const { file: f, decl } of ws.module(dir).decls) {
    if (decl.kind !== 'provider' || decl.name !== m[1]) continue;
    const alias = decl.block.attrs.find((a) => a.name === 'alias')?.valueText?.match(/^"(.*)"$/)?.[1];
    if (alias === m[2]) return [{ uri: f.uri, range: decl.nameRange }];
  }
  return [];
}

/** On a module call's local `source`: the called module's files (main.tf first when it has one). */
function moduleSource(ws: Workspace, file: IndexedFile, pos: Position): Location[] {
  const dir = ws.dirOf(file.path);
  for (const decl of file.index.decls) {
    if (decl.kind !== 'module') continue;
    const src = decl.block.attrs.find((a) => a.name === 'source');
    if (!src?.valueRange || !contains(src.valueRange, pos)) continue;
    const child = ws.moduleDir(dir, decl);
    if (!child) return [];
    const files = ws.module(child).files;
    const main = files.find((f) => f.path.endsWith('/main.tf'));
    const start = { line: 0, character: 0 };
    return (main ? [main, ...files.filter((f) => f !== main)] : files).map((f) => ({ uri: f.uri, range: { start, end: start } }));
  }
  return [];
}

export function references(ws: Workspace, p: ReferenceParams): Location[] {
  const file = fileOf(ws, p.textDocument.uri);
  if (!file) return [];
  const at = targetAt(ws, file, p.position);
  if (!at) return [];
  return sortLocations(
    occurrences(ws, at.target)
      .filter((o) => p.context.includeDeclaration || !o.declaration)
      .map((o) => ({ uri: o.uri, range: o.range })),
  );
}

function sortLocations(l: Location[]): Location[] {
  return l.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character));
}

const RENAMABLE = new Set(['variable', 'local', 'output', 'resource', 'data', 'module']);

export function prepareRename(ws: Workspace, p: PrepareRenameParams): { range: Range; placeholder: string } | null {
  const file = fileOf(ws, p.textDocument.uri);
  if (!file) return null;
  const at = targetAt(ws, file, p.position);
  if (!at || !RENAMABLE.has(at.target.kind)) return null;
  if (!findDecl(ws.module(at.target.dir), at.target)) return null;
  return { range: at.range, placeholder: at.target.name };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function rename(ws: Workspace, p: RenameParams): WorkspaceEdit | ResponseError<void> | null {
  const file = fileOf(ws, p.textDocument.uri);
  if (!file) return null;
  const at = targetAt(ws, file, p.position);
  if (!at) return null;
  const t = at.target;
  const m = ws.module(t.dir);
  const decl = findDecl(m, t);
  if (!decl) return new ResponseError(ErrorCodes.InvalidRequest, `${targetLabel(t)} is not declared, so it cannot be renamed.`);
  if (!IDENT.test(p.newName)) return new ResponseError(ErrorCodes.InvalidParams, `"${p.newName}" is not a valid name: a name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.`);
  if (p.newName === t.name) return { changes: {} };
  const clash: Target = { ...t, name: p.newName };
  if (findDecl(m, clash)) return new ResponseError(ErrorCodes.InvalidParams, `${targetLabel(clash)} is already declared.`);
  const changes: Record<string, TextEdit[]> = {};
  const add = (uri: string, e: TextEdit) => (changes[uri] ??= []).push(e);
  for (const o of occurrences(ws, t)) add(o.uri, { range: o.range, newText: p.newName });
  if (t.kind === 'resource' || t.kind === 'module') {
    const from = targetLabel(t);
    const to = targetLabel(clash);
    add(decl.file.uri, movedEdit(decl.file.text, decl.decl.block, from, to));
  }
  for (const list of Object.values(changes)) list.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return { changes };
}

/** The text of a moved block, formatted as `terraform fmt` writes it. */
export function movedBlock(from: string, to: string): string {
  return `moved {\n  from = ${from}\n  to   = ${to}\n}\n`;
}

/** An insertion of a moved block after `block` (which ends a line), separated by one blank line. */
export function movedEdit(text: string, block: BlockInfo, from: string, to: string): TextEdit {
  const end = block.range.end;
  const lines = text.split('\n');
  const line = lines[end.line] ?? '';
  const body = movedBlock(from, to).replace(/\n$/, '');
  // Inserted at the end of the block's last line, so that line's own newline follows the new block.
  if (line.slice(end.character).trim() === '') {
    const lineEnd = { line: end.line, character: line.length };
    return { range: { start: lineEnd, end: lineEnd }, newText: `\n\n${body}` };
  }
  return { range: { start: end, end }, newText: `\n\n${body}\n` };
}
