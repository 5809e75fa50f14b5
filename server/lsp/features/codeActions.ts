// textDocument/codeAction: quick fixes.
//
// - "Add required argument "x"": for a "Missing required argument" diagnostic (the provider's schema or a
//   module's variable without default): inserts `x = <empty value of its type>` as the block's last line
//   (the type from the schema, or from the type constraint of the child module's variable).
// - "Declare variable "x"": for a reference to an undeclared input variable (its diagnostic, or the cursor on
//   `var.x`): appends `variable "x" {}` to variables.tf when the module has one, else to the same file.
// - "Replace deprecated "a" with "b"": for an argument whose schema attribute is deprecated and whose
//   description names the replacement (`use `numeric` instead`), when the replacement is not set already.
// - "Add moved block from T.old": the cursor is in a managed resource block whose address is not in the
//   state while the state has a resource of the same type that the configuration no longer declares and no
//   moved block mentions (a manual rename): appends `moved { from = T.old  to = T.new }` after the block.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CodeActionKind, type CodeAction, type CodeActionParams, type Diagnostic, type TextEdit } from 'vscode-languageserver';
import { attributeType, type Attribute } from '../../providers/schema';
import { blockPathAt, contains, type BlockInfo } from './fileIndex';
import { movedEdit } from './navigation';
import { descend, deprecatedReplacement, loadedSchemas, providerSchemas, topLevelSchema } from './schemas';
import { findDecl, refTarget } from './symbols';
import type { IndexedFile, Workspace } from './workspace';

export async function codeActions(ws: Workspace, p: CodeActionParams): Promise<CodeAction[]> {
  const doc = ws.session.documents.get(p.textDocument.uri);
  if (!doc?.path) return [];
  const pending = ws.ready(ws.dirOf(doc.path));
  if (pending) await pending;
  const file = ws.file(doc.path);
  if (!file) return [];
  const out: CodeAction[] = [];
  const schemas = loadedSchemas() ?? (await providerSchemas());
  const seen = new Set<string>();
  const add = (a: CodeAction) => {
    if (seen.has(a.title)) return;
    seen.add(a.title);
    out.push(a);
  };
  const only = p.context.only;
  const wantsQuickFix = !only || only.some((k) => k === CodeActionKind.QuickFix || CodeActionKind.QuickFix.startsWith(k));
  if (!wantsQuickFix) return [];

  // Diagnostic-driven fixes.
  for (const d of p.context.diagnostics) {
    const message = messageOf(d);
    const missing = message.match(/^Missing required argument\n\nThe argument "([^"]+)" is required/);
    if (missing) {
      const path = blockPathAt(file.index.blocks, d.range.start);
      const block = path[path.length - 1];
      if (block) {
        const schemaBlock = schemaOf(schemas, path);
        const a = schemaBlock?.attributes[missing[1]];
        const value = a ? emptyValueText(a) : block.type === 'module' && path.length === 1 ? moduleArgumentValue(ws, file, block, missing[1]) : '""';
        const e = insertArgument(file.text, block, missing[1], value);
        if (e) add({ title: `Add required argument "${missing[1]}"`, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [file.uri]: [e] } } });
      }
    }
    const undeclared = message.match(/^Reference to undeclared input variable\n\nAn input variable with the name "([^"]+)" has not been declared/);
    if (undeclared) add(declareVariable(ws, file, undeclared[1], [d]));
  }

  // Fixes found from the cursor position.
  const pos = p.range.start;
  const dir = ws.dirOf(file.path);
  const m = ws.module(dir);
  for (const ref of file.index.refs) {
    if (!contains(ref.range, pos) || ref.root.name !== 'var' || !ref.parts[0]) continue;
    const t = refTarget(ref, dir, m);
    if (t && !findDecl(m, t.target)) add(declareVariable(ws, file, t.target.name, []));
  }
  // Deprecated attributes: the one under the cursor, and those a deprecation diagnostic points at (the
  // attribute itself, or the block when the warning is placed on the block).
  const deprecationDiags = p.context.diagnostics.filter((d) => /deprecated/i.test(messageOf(d)));
  const places = [pos, ...deprecationDiags.map((d) => d.range.start)];
  for (const place of places) {
    const at = blockPathAt(file.index.blocks, place);
    const block = at[at.length - 1];
    const schemaBlock = block && schemaOf(schemas, at);
    if (!block || !schemaBlock) continue;
    const onBlock = place !== pos && !block.attrs.some((a) => contains(a.range, place));
    for (const attr of block.attrs) {
      if (!onBlock && !contains(attr.range, place)) continue;
      const sa = schemaBlock.attributes[attr.name];
      const repl = sa && deprecatedReplacement(sa, schemaBlock.attributes);
      if (!repl || block.attrs.some((x) => x.name === repl)) continue;
      const diags = deprecationDiags.filter((d) => contains(attr.range, d.range.start) || contains(block.range, d.range.start));
      add({
        title: `Replace deprecated "${attr.name}" with "${repl}"`,
        kind: CodeActionKind.QuickFix,
        ...(diags.length ? { diagnostics: diags } : {}),
        edit: { changes: { [file.uri]: [{ range: attr.nameRange, newText: repl }] } },
      });
    }
  }
  const path = blockPathAt(file.index.blocks, pos);
  const top = path[0];
  if (top?.type === 'resource' && top.labels.length === 2) {
    const type = top.labels[0].name;
    const name = top.labels[1].name;
    const state = stateResources(dir);
    if (state && !state.has(`${type}.${name}`)) {
      const declared = new Set(m.decls.filter(({ decl }) => decl.kind === 'resource').map(({ decl }) => `${decl.type}.${decl.name}`));
      const movedFrom = new Set<string>();
      for (const f of m.files) for (const b of f.index.blocks) if (b.type === 'moved') for (const a of b.attrs) if (a.name === 'from' && a.valueText) movedFrom.add(a.valueText.trim());
      for (const addr of [...state].sort()) {
        if (!addr.startsWith(`${type}.`) || declared.has(addr) || movedFrom.has(addr)) continue;
        add({
          title: `Add moved block from ${addr}`,
          kind: CodeActionKind.QuickFix,
          edit: { changes: { [file.uri]: [movedEdit(file.text, top, addr, `${type}.${name}`)] } },
        });
      }
    }
  }
  return out;
}

function messageOf(d: Diagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

function schemaOf(schemas: Awaited<ReturnType<typeof providerSchemas>>, path: readonly BlockInfo[]) {
  if (!path.length) return undefined;
  let steps = path.map((b) => ({ type: b.type, labels: b.labels.map((l) => l.name) }));
  if (steps[0].type === 'check' && steps[1]?.type === 'data') steps = steps.slice(1);
  return descend(topLevelSchema(schemas, steps[0].type, steps[0].labels), steps.slice(1));
}

/** A placeholder value of an attribute's type: `""`, `0`, `false`, `[]` or `{}`. */
function emptyValueText(a: Attribute): string {
  const t = attributeType(a);
  switch (t.kind) {
    case 'number':
      return '0';
    case 'bool':
      return 'false';
    case 'list':
    case 'set':
    case 'tuple':
      return '[]';
    case 'map':
    case 'object':
      return '{}';
    default:
      return '""';
  }
}

/** A placeholder for a module call's missing argument, from the type constraint of the child's variable. */
function moduleArgumentValue(ws: Workspace, file: IndexedFile, block: BlockInfo, name: string): string {
  const dir = ws.dirOf(file.path);
  const call = findDecl(ws.module(dir), { kind: 'module', dir, name: block.labels[0]?.name ?? '' });
  const child = call && ws.moduleDir(dir, call.decl);
  const v = child ? findDecl(ws.module(child), { kind: 'variable', dir: child, name }) : undefined;
  const type = v?.decl.block.attrs.find((x) => x.name === 'type')?.valueText?.replace(/\s+/g, '') ?? '';
  if (type === 'number') return '0';
  if (type === 'bool') return 'false';
  if (/^(list|set|tuple)\(/.test(type)) return '[]';
  if (/^(map|object)\(/.test(type)) return '{}';
  return '""';
}

/** Inserts `name = value` as the last line of the block's body, indented one level deeper than the block. */
function insertArgument(text: string, block: BlockInfo, name: string, value: string): TextEdit | undefined {
  if (!block.close || !block.open) return undefined;
  const lines = text.split('\n');
  const headerLine = lines[block.range.start.line] ?? '';
  const indent = headerLine.match(/^\s*/)![0] + '  ';
  const closeLine = lines[block.close.line] ?? '';
  if (block.close.line > block.open.line && closeLine.slice(0, block.close.character).trim() === '') {
    const at = { line: block.close.line, character: 0 };
    return { range: { start: at, end: at }, newText: `${indent}${name} = ${value}\n` };
  }
  // `{}` or `{ ... }` on one line: open it up.
  const at = block.close;
  return { range: { start: at, end: at }, newText: `\n${indent}${name} = ${value}\n${headerLine.match(/^\s*/)![0]}` };
}

function declareVariable(ws: Workspace, file: IndexedFile, name: string, diagnostics: Diagnostic[]): CodeAction {
  const dir = ws.dirOf(file.path);
  const varsPath = join(dir, 'variables.tf');
  const target = ws.filesOf(dir).includes(varsPath) ? ws.file(varsPath) : undefined;
  const into = target ?? file;
  const text = into.text;
  const lines = text.split('\n');
  const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
  const block = `variable "${name}" {}\n`;
  const newText = text === '' ? block : text.endsWith('\n\n') ? block : text.endsWith('\n') ? `\n${block}` : `\n\n${block}`;
  return {
    title: `Declare variable "${name}"${into === file ? '' : ' in variables.tf'}`,
    kind: CodeActionKind.QuickFix,
    ...(diagnostics.length ? { diagnostics, isPreferred: true } : {}),
    edit: { changes: { [into.uri]: [{ range: { start: end, end }, newText }] } },
  };
}

/**
 * The root module's managed resource addresses (`type.name`) in the current workspace's local state, or
 * undefined without a readable state. The workspace is TF_WORKSPACE or .terraform/environment, as the
 * local backend chooses it.
 */
export function stateResources(dir: string): Set<string> | undefined {
  let workspace = process.env.TF_WORKSPACE ?? '';
  if (!workspace) {
    try {
      workspace = readFileSync(join(dir, '.terraform', 'environment'), 'utf8').trim();
    } catch {
      workspace = 'default';
    }
  }
  const path = workspace === 'default' || workspace === '' ? join(dir, 'terraform.tfstate') : join(dir, 'terraform.tfstate.d', workspace, 'terraform.tfstate');
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  // Code actions are asked for at every cursor move: the state file is parsed again only when it changed.
  const cached = stateCache.get(path);
  if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.addresses;
  let json: { resources?: { module?: string; mode?: string; type?: string; name?: string }[] };
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const out = new Set<string>();
  for (const r of json.resources ?? []) if (!r.module && r.mode === 'managed' && r.type && r.name) out.add(`${r.type}.${r.name}`);
  stateCache.set(path, { mtimeMs: st.mtimeMs, size: st.size, addresses: out });
  return out;
}

const stateCache = new Map<string, { mtimeMs: number; size: number; addresses: Set<string> }>();
