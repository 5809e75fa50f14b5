// What a position names, and every place that names the same thing: the shared core of go to definition,
// find references, rename and prepareRename.
//
// A Target is a declared object of one module directory: a variable, local, output, managed resource, data
// source or module call. Occurrences are found through the FileIndex of each file of the module, plus, for
// things visible across a module boundary, the calling modules (a variable is set by the argument of the
// same name in `module "x" {}` blocks whose local source is this directory; an output is read as
// `module.x.<name>` there) and the called ones (`module.x.out` → the child's output declaration).

import type { Position, Range } from 'vscode-languageserver';
import { before, contains, type Decl, type Ref } from './fileIndex';
import type { IndexedFile, ModuleIndex, Workspace } from './workspace';

export type TargetKind = 'variable' | 'local' | 'output' | 'resource' | 'data' | 'module';

export interface Target {
  kind: TargetKind;
  /** The module directory that declares it. */
  dir: string;
  name: string;
  /** Resource and data source type. */
  type?: string;
}

export interface Occurrence {
  uri: string;
  /** Range of the name itself (what a rename replaces). */
  range: Range;
  /** True for the declaration. */
  declaration: boolean;
  file: IndexedFile;
}

/** Reference roots that are not resource types. */
export const RESERVED_ROOTS = new Set(['var', 'local', 'module', 'data', 'path', 'terraform', 'count', 'each', 'self', 'ephemeral']);

export function declKey(d: { kind: string; name: string; type?: string }): string {
  return d.type !== undefined ? `${d.kind}.${d.type}.${d.name}` : `${d.kind}.${d.name}`;
}

/** The declaration a target refers to, if declared. */
export function findDecl(m: ModuleIndex, t: Target): { file: IndexedFile; decl: Decl } | undefined {
  return m.decls.find(({ decl }) => decl.kind === t.kind && decl.name === t.name && (t.type === undefined || decl.type === t.type));
}

/** What a reference names, and the range of the part naming it (undefined when it names nothing declarable). */
export function refTarget(ref: Ref, dir: string, m: ModuleIndex): { target: Target; range: Range } | undefined {
  const [p0, p1] = ref.parts;
  switch (ref.root.name) {
    case 'var':
      return p0 ? { target: { kind: 'variable', dir, name: p0.name }, range: p0.range } : undefined;
    case 'local':
      return p0 ? { target: { kind: 'local', dir, name: p0.name }, range: p0.range } : undefined;
    case 'module':
      return p0 ? { target: { kind: 'module', dir, name: p0.name }, range: p0.range } : undefined;
    case 'data':
      return p0 && p1 ? { target: { kind: 'data', dir, name: p1.name, type: p0.name }, range: p1.range } : undefined;
    default:
      if (RESERVED_ROOTS.has(ref.root.name) || !p0) return undefined;
      if (!m.resourceTypes.has(ref.root.name)) return undefined;
      return { target: { kind: 'resource', dir, name: p0.name, type: ref.root.name }, range: p0.range };
  }
}

export interface At {
  target: Target;
  /** Range of the name under the cursor. */
  range: Range;
}

/** What the position in `file` names. */
export function targetAt(ws: Workspace, file: IndexedFile, pos: Position): At | undefined {
  const dir = ws.dirOf(file.path);
  const m = ws.module(dir);
  for (const ref of file.index.refs) {
    if (!contains(ref.range, pos)) continue;
    // `module.x.out` with the cursor on `out`: the child module's output.
    if (ref.root.name === 'module' && ref.parts[1] && contains(ref.parts[1].range, pos)) {
      const call = findDecl(m, { kind: 'module', dir, name: ref.parts[0].name });
      const child = call && ws.moduleDir(dir, call.decl);
      if (child) return { target: { kind: 'output', dir: child, name: ref.parts[1].name }, range: ref.parts[1].range };
      return undefined;
    }
    const t = refTarget(ref, dir, m);
    // Only the traversal up to the name: `type.name.attr` with the cursor on `attr` names nothing declared.
    if (t && before(pos, t.range.end)) return { target: t.target, range: t.range };
  }
  if (file.path.endsWith('.tfvars')) {
    const a = file.index.attrs.find((x) => contains(x.nameRange, pos));
    return a ? { target: { kind: 'variable', dir, name: a.name }, range: a.nameRange } : undefined;
  }
  for (const decl of file.index.decls) {
    if (contains(decl.nameRange, pos) && decl.kind !== 'provider' && decl.kind !== 'check' && decl.kind !== 'ephemeral') {
      return { target: { kind: decl.kind, dir, name: decl.name, ...(decl.type !== undefined ? { type: decl.type } : {}) }, range: decl.nameRange };
    }
    // An argument of a module call: the child's variable.
    if (decl.kind === 'module' && contains(decl.range, pos)) {
      const arg = decl.block.attrs.find((a) => contains(a.nameRange, pos));
      const child = ws.moduleDir(dir, decl);
      if (arg && child && !META_MODULE_ARGS.has(arg.name)) return { target: { kind: 'variable', dir: child, name: arg.name }, range: arg.nameRange };
    }
  }
  return undefined;
}

export const META_MODULE_ARGS = new Set(['source', 'version', 'count', 'for_each', 'providers', 'depends_on']);

/** Every occurrence of the target: its declaration, references in its module, and uses in calling modules. */
export function occurrences(ws: Workspace, t: Target): Occurrence[] {
  const m = ws.module(t.dir);
  const out: Occurrence[] = [];
  const decl = findDecl(m, t);
  if (decl) out.push({ uri: decl.file.uri, range: decl.decl.nameRange, declaration: true, file: decl.file });
  if (t.kind !== 'output') {
    for (const { file, ref } of m.refs) {
      const r = refTarget(ref, t.dir, m);
      if (r && r.target.kind === t.kind && r.target.name === t.name && r.target.type === t.type) out.push({ uri: file.uri, range: r.range, declaration: false, file });
    }
  }
  if (t.kind === 'variable') {
    // Values set in the module's .tfvars files.
    for (const path of ws.tfvarsOf(t.dir)) {
      const f = ws.file(path);
      for (const a of f?.index.attrs ?? []) if (a.name === t.name) out.push({ uri: f!.uri, range: a.nameRange, declaration: false, file: f! });
    }
  }
  if (t.kind === 'variable' || t.kind === 'output') {
    for (const caller of ws.callersOf(t.dir)) {
      if (t.kind === 'variable') {
        const arg = caller.decl.block.attrs.find((a) => a.name === t.name);
        if (arg) out.push({ uri: caller.file.uri, range: arg.nameRange, declaration: false, file: caller.file });
      } else {
        for (const { file, ref } of caller.module.refs) {
          if (ref.root.name === 'module' && ref.parts[0]?.name === caller.decl.name && ref.parts[1]?.name === t.name) {
            out.push({ uri: file.uri, range: ref.parts[1].range, declaration: false, file });
          }
        }
      }
    }
  }
  return out;
}

export function targetLabel(t: Target): string {
  switch (t.kind) {
    case 'variable':
      return `var.${t.name}`;
    case 'local':
      return `local.${t.name}`;
    case 'output':
      return `output.${t.name}`;
    case 'module':
      return `module.${t.name}`;
    case 'data':
      return `data.${t.type}.${t.name}`;
    case 'resource':
      return `${t.type}.${t.name}`;
  }
}
