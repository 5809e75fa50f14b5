// textDocument/completion and textDocument/signatureHelp.
//
// Where the cursor is (context.ts) decides what is offered:
// - where a block or argument name goes: top-level block types; inside a block, its arguments and nested
//   blocks: meta-arguments, the provider schema's attributes and block types for resource/data/provider
//   bodies (required ones first, with type, flags and description), a called module's variables in a module
//   call, the built-in providers in required_providers; in a .tfvars file, the module's variables;
// - in a block label: resource and data source types from the provider schemas, provider names;
// - in an expression: after `var.`, `local.`, `module.`, `module.x.`, `data.`, `data.t.`, `data.t.n.`,
//   `type.`, `type.name.`, `each.`, `count.`, `path.`, `terraform.`, `self.` or a dynamic block's iterator
//   what they can be followed by; otherwise the reference roots, the module's resource types, function names
//   with signatures, and the values an attribute allows (`true`/`false` for a bool, the values its
//   description lists, provider configurations for `provider =`, type keywords for a variable's `type`).
// Nothing inside comments. Every item carries a textEdit replacing exactly the identifier typed so far.

import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type CompletionParams,
  type Position,
  type SignatureHelp,
  type SignatureHelpParams,
  type SignatureInformation,
} from 'vscode-languageserver';
import { allFunctions } from '../../lang/funcs/registry';
import { BUILTIN_PROVIDERS } from '../../providers/builtin/index';
import type { FuncSpec } from '../../lang/funcs/function';
import { friendlyName } from '../../lang/types';
import type { Attribute, Block } from '../../providers/schema';
import { attributeType } from '../../providers/schema';
import { cursorContext, enclosingCall, type BlockFrame } from './context';
import { attributeFlags, descend, enumValues, loadedSchemas, nestedBlockFlags, providerSchemas, topLevelSchema, type ProviderSchemas } from './schemas';
import { findDecl, RESERVED_ROOTS } from './symbols';
import { blockPathAt } from './fileIndex';
import type { ModuleIndex, Workspace } from './workspace';

export function offsetAt(text: string, p: Position): number {
  let off = 0;
  for (let l = 0; l < p.line; l++) {
    const n = text.indexOf('\n', off);
    if (n < 0) return text.length;
    off = n + 1;
  }
  const lineEnd = text.indexOf('\n', off);
  return Math.min(off + p.character, lineEnd < 0 ? text.length : lineEnd);
}

function positionAt(text: string, offset: number): Position {
  let line = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, character: offset - start };
}

interface BlockSpec {
  /** Number of labels; documentation. */
  labels: string[];
  doc: string;
}

/** Top-level block types, with their labels, in the order Terraform's documentation lists them. */
export const TOP_LEVEL: Record<string, BlockSpec> = {
  resource: { labels: ['type', 'name'], doc: 'A managed resource.' },
  data: { labels: ['type', 'name'], doc: 'A data source.' },
  ephemeral: { labels: ['type', 'name'], doc: 'An ephemeral resource.' },
  variable: { labels: ['name'], doc: 'An input variable.' },
  output: { labels: ['name'], doc: 'An output value.' },
  locals: { labels: [], doc: 'Local values.' },
  module: { labels: ['name'], doc: 'A module call.' },
  provider: { labels: ['name'], doc: 'A provider configuration.' },
  terraform: { labels: [], doc: 'Terraform settings: required version, providers, backend.' },
  moved: { labels: [], doc: 'Records that an object moved to a new address, so that its state follows.' },
  import: { labels: [], doc: 'Imports an existing object into a resource.' },
  removed: { labels: [], doc: 'Removes an object from the state without destroying it (or destroys it).' },
  check: { labels: ['name'], doc: 'A check block: assertions checked at plan and apply time.' },
};

interface ArgSpec {
  kind: 'attr' | 'block';
  doc: string;
  labels?: string[];
  required?: boolean;
}

const a = (doc: string, required = false): ArgSpec => ({ kind: 'attr', doc, required });
const b = (doc: string, labels: string[] = []): ArgSpec => ({ kind: 'block', doc, labels });

const CONDITION: Record<string, ArgSpec> = { condition: a('The condition that must hold.', true), error_message: a('The message shown when the condition fails.', true) };

/** Arguments and nested blocks of the blocks Terraform itself defines (not provider schemas). */
const BUILTIN_BODIES: Record<string, Record<string, ArgSpec>> = {
  'resource': {
    count: a('Creates this many instances.'),
    for_each: a('Creates one instance per element of a map or set of strings.'),
    provider: a('The provider configuration to use (`name` or `name.alias`).'),
    depends_on: a('Explicit dependencies on other objects.'),
    lifecycle: b('Lifecycle customizations.'),
    provisioner: b('A provisioner run after creation or before destruction.', ['type']),
    connection: b('Connection settings for provisioners.'),
    dynamic: b('Generates nested blocks from a collection.', ['name']),
  },
  'data': {
    count: a('Creates this many instances.'),
    for_each: a('Creates one instance per element of a map or set of strings.'),
    provider: a('The provider configuration to use (`name` or `name.alias`).'),
    depends_on: a('Explicit dependencies on other objects.'),
    lifecycle: b('Lifecycle customizations (preconditions and postconditions).'),
    dynamic: b('Generates nested blocks from a collection.', ['name']),
  },
  'lifecycle': {
    create_before_destroy: a('Create the replacement before destroying the current object.'),
    prevent_destroy: a('Reject any plan that would destroy this object.'),
    ignore_changes: a('Attributes whose changes are ignored when planning updates.'),
    replace_triggered_by: a('Replace this object when any of the referenced objects change.'),
    precondition: b('A condition checked before planning this object.'),
    postcondition: b('A condition checked after planning or applying this object.'),
  },
  'variable': {
    type: a('The type constraint of the value.'),
    default: a('The value used when none is given.'),
    description: a('Documentation for the variable.'),
    sensitive: a('Hide the value in plan and apply output.'),
    nullable: a('Whether the value may be null (default true).'),
    ephemeral: a('The value is available only during this run and never stored.'),
    validation: b('A rule the value must satisfy.'),
  },
  'output': {
    value: a('The value of the output.', true),
    description: a('Documentation for the output.'),
    sensitive: a('Hide the value in plan and apply output.'),
    ephemeral: a('The value is available only during this run and never stored.'),
    depends_on: a('Explicit dependencies.'),
    precondition: b('A condition checked before the value is accepted.'),
  },
  'module': {
    source: a('Where the module is: a local path, a registry address or a URL.', true),
    version: a('A version constraint for a registry module.'),
    count: a('Creates this many instances of the module.'),
    for_each: a('Creates one module instance per element of a map or set of strings.'),
    providers: a('Provider configurations passed to the module.'),
    depends_on: a('Explicit dependencies.'),
  },
  'provider': { alias: a('A name for an additional configuration of this provider.') },
  'terraform': {
    required_version: a('Terraform versions this configuration works with.'),
    required_providers: b('The providers this module needs, with sources and versions.'),
    backend: b('Where state is stored.', ['type']),
    cloud: b('HCP Terraform settings.'),
    experiments: a('Opt-in experimental language features.'),
    provider_meta: b('Metadata passed to a provider.', ['provider']),
  },
  'moved': { from: a('The previous address.', true), to: a('The new address.', true) },
  'import': {
    to: a('The resource instance to import into.', true),
    id: a('The identifier of the object to import.'),
    identity: a('The identity of the object to import.'),
    provider: a('The provider configuration to use.'),
    for_each: a('Imports one object per element.'),
  },
  'removed': {
    from: a('The address of the resource or module removed from the configuration.', true),
    lifecycle: b('`destroy = false` keeps the object.'),
    provisioner: b('A destroy-time provisioner.', ['type']),
  },
  'removed.lifecycle': { destroy: a('Whether to destroy the object (default true).', true) },
  'check': { data: b('A scoped data source.', ['type', 'name']), assert: b('An assertion.') },
  'dynamic': {
    for_each: a('The collection to generate blocks from.', true),
    iterator: a('The name of the iteration variable (defaults to the block name).'),
    labels: a('Labels of the generated blocks.'),
    content: b('The body of each generated block.'),
  },
  'precondition': CONDITION,
  'postcondition': CONDITION,
  'validation': CONDITION,
  'assert': CONDITION,
  'connection': {
    type: a('The connection type: "ssh" or "winrm".'),
    host: a('The address of the resource to connect to.', true),
    user: a('The user to connect as.'),
    password: a('The password.'),
    port: a('The port.'),
    timeout: a('How long to wait for the connection.'),
    private_key: a('The private key for SSH.'),
  },
};

function snippetFor(name: string, labels: readonly string[], block: boolean): string {
  if (!block) return `${name} = $0`;
  const ls = labels.map((l, i) => ` "\${${i + 1}:${l}}"`).join('');
  return `${name}${ls} {\n\t$0\n}`;
}

/** `name(p1 type, p2 type, ...vp type) ret`, with the parameters' offsets in that label. */
export function signatureOf(name: string, spec: FuncSpec): SignatureInformation {
  let label = `${name}(`;
  const parameters: { label: [number, number] }[] = [];
  const params = spec.varParam ? [...spec.params, spec.varParam] : spec.params;
  params.forEach((p, i) => {
    if (i > 0) label += ', ';
    const text = `${p === spec.varParam ? '...' : ''}${p.name} ${friendlyName(p.type)}`;
    parameters.push({ label: [label.length, label.length + text.length] });
    label += text;
  });
  label += ')';
  if (spec.returns) label += ` ${friendlyName(spec.returns)}`;
  const out: SignatureInformation = { label, parameters };
  if (spec.description) out.documentation = spec.description;
  return out;
}

export async function completion(ws: Workspace, p: CompletionParams): Promise<CompletionList | null> {
  const doc = ws.session.documents.get(p.textDocument.uri);
  if (!doc) return null;
  const text = doc.text;
  const offset = offsetAt(text, p.position);
  const ctx = cursorContext(text, offset);
  const schemas = loadedSchemas() ?? (await providerSchemas());
  // Awaited only when there is work: an await yields to whatever else is queued.
  const pending = doc.dir ? ws.ready(doc.dir) : undefined;
  if (pending) await pending;
  const m = doc.path ? ws.module(doc.dir!) : undefined;
  const items: CompletionItem[] = [];
  const end = positionAt(text, offset);
  const edit = (start: number) => ({ start: positionAt(text, start), end });
  switch (ctx.kind) {
    case 'name': {
      const range = edit(ctx.prefixStart);
      if (doc.path?.endsWith('.tfvars')) {
        // A variable definitions file: the module's variables.
        if (ctx.blocks.length > 0 || !m) break;
        const vars = m.decls.filter((d) => d.decl.kind === 'variable').map((d) => d.decl);
        for (const v of vars.sort((x, y) => (x.name < y.name ? -1 : 1))) {
          items.push({ ...variableItem(v), textEdit: { range, newText: `${v.name} = $0` }, insertTextFormat: InsertTextFormat.Snippet });
        }
        break;
      }
      for (const it of nameItems(ws, schemas, ctx.blocks, m)) {
        const block = it.kind === CompletionItemKind.Module || it.kind === CompletionItemKind.Struct;
        const data = it.data as { labels?: string[]; snippet?: string } | undefined;
        const newText = data?.snippet ?? snippetFor(it.label, data?.labels ?? [], block);
        items.push({ ...it, textEdit: { range, newText }, insertTextFormat: InsertTextFormat.Snippet, data: undefined });
      }
      break;
    }
    case 'label': {
      const range = edit(ctx.prefixStart);
      const names: [string, string][] = [];
      if (ctx.index === 0 && ctx.blockType === 'resource') for (const [k, v] of schemas.resources) names.push([k, v.provider]);
      if (ctx.index === 0 && ctx.blockType === 'data') for (const [k, v] of schemas.dataSources) names.push([k, v.provider]);
      if (ctx.index === 0 && ctx.blockType === 'provider') for (const [k, v] of schemas.providers) names.push([k, v.address]);
      for (const [label, detail] of names.sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
        const s = ctx.blockType === 'resource' ? schemas.resources.get(label)?.schema.block : ctx.blockType === 'data' ? schemas.dataSources.get(label)?.schema.block : undefined;
        const it: CompletionItem = { label, kind: ctx.blockType === 'provider' ? CompletionItemKind.Module : CompletionItemKind.Class, detail, textEdit: { range, newText: label } };
        if (s?.description) it.documentation = { kind: MarkupKind.Markdown, value: s.description };
        items.push(it);
      }
      break;
    }
    case 'expr': {
      const before = text.slice(Math.max(0, offset - 4096), offset);
      const trav = before.match(/([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\.\d+|\.\*|\[[^[\]]*\])*)\.([A-Za-z_][\w-]*)?$/);
      if (trav) {
        const partial = trav[2] ?? '';
        const steps = trav[1].split(/\.|\[[^[\]]*\]/).filter((s) => s !== '' && !/^\d+$/.test(s) && s !== '*');
        const range = edit(offset - partial.length);
        for (const it of traversalItems(ws, schemas, m, ctx.blocks, steps, dynamicIterators(ws, doc.path, p.position))) items.push({ ...it, textEdit: { range, newText: it.label } });
        break;
      }
      const word = before.match(/[A-Za-z_][\w-]*$/)?.[0] ?? '';
      if (/[\w.-]$/.test(before.slice(0, before.length - word.length)) && word === '') break;
      const range = edit(offset - word.length);
      if (ctx.attribute === 'type' && ctx.blocks.length === 1 && ctx.blocks[0].type === 'variable') {
        // A type constraint: type keywords and constructors, not references.
        TYPE_KEYWORDS.forEach(([label, snippet, detail], i) =>
          items.push({ label, kind: CompletionItemKind.TypeParameter, detail, sortText: `${i}`.padStart(2, '0'), textEdit: { range, newText: snippet }, insertTextFormat: InsertTextFormat.Snippet }),
        );
        break;
      }
      for (const it of rootItems(schemas, m, ctx.blocks, ctx.attribute)) {
        const isFn = it.kind === CompletionItemKind.Function;
        items.push({ ...it, textEdit: { range, newText: isFn ? `${it.label}($0)` : it.label }, ...(isFn ? { insertTextFormat: InsertTextFormat.Snippet } : {}) });
      }
      break;
    }
    case 'string': {
      const range = edit(ctx.prefixStart);
      const attr = ctx.attribute ? schemaAttribute(schemas, ctx.blocks, ctx.attribute) : undefined;
      for (const v of attr ? enumValues(attr) : []) items.push({ label: v, kind: CompletionItemKind.EnumMember, detail: `allowed value of ${ctx.attribute}`, textEdit: { range, newText: v } });
      break;
    }
    case 'none':
      break;
  }
  return { isIncomplete: false, items };
}

/** The iterator names of the dynamic blocks around `pos` (their `iterator` argument, else their label). */
function dynamicIterators(ws: Workspace, path: string | undefined, pos: Position): Set<string> {
  const out = new Set<string>();
  const file = path ? ws.file(path) : undefined;
  for (const b of file ? blockPathAt(file.index.blocks, pos) : []) {
    if (b.type !== 'dynamic') continue;
    const it = b.attrs.find((a) => a.name === 'iterator')?.valueText;
    out.add(it && /^[A-Za-z_][\w-]*$/.test(it) ? it : (b.labels[0]?.name ?? ''));
  }
  return out;
}

function blockSchema(schemas: ProviderSchemas, blocks: readonly BlockFrame[]): Block | undefined {
  if (blocks.length === 0) return undefined;
  const top = topLevelSchema(schemas, blocks[0].type, blocks[0].labels);
  return descend(top, blocks.slice(1));
}

function schemaAttribute(schemas: ProviderSchemas, blocks: readonly BlockFrame[], name: string): Attribute | undefined {
  return blockSchema(schemas, blocks)?.attributes[name];
}

/** The key BUILTIN_BODIES knows a block path by. */
function builtinKey(blocks: readonly BlockFrame[]): string | undefined {
  const last = blocks[blocks.length - 1];
  if (!last) return undefined;
  if (blocks.length === 1) return last.type === 'ephemeral' ? 'data' : last.type;
  if (last.type === 'lifecycle' && blocks[0].type === 'removed' && blocks.length === 2) return 'removed.lifecycle';
  if (last.type === 'lifecycle' && blocks.length === 2) return 'lifecycle';
  if (last.type === 'dynamic') return 'dynamic';
  if (['precondition', 'postcondition', 'validation', 'assert', 'connection'].includes(last.type)) return last.type;
  if (blocks[0].type === 'check' && last.type === 'data' && blocks.length === 2) return 'data';
  return undefined;
}

function attrDetail(a: Attribute): string {
  return `${friendlyName(attributeType(a))}, ${attributeFlags(a)}`;
}

function nameItems(ws: Workspace, schemas: ProviderSchemas, blocks: readonly BlockFrame[], m: ModuleIndex | undefined): CompletionItem[] {
  const items: CompletionItem[] = [];
  if (blocks.length === 0) {
    for (const [name, spec] of Object.entries(TOP_LEVEL)) items.push({ label: name, kind: CompletionItemKind.Module, detail: 'block', documentation: spec.doc, data: { labels: spec.labels } });
    return items;
  }
  const seen = new Set<string>();
  const push = (it: CompletionItem) => {
    if (seen.has(it.label)) return;
    seen.add(it.label);
    items.push(it);
  };
  // Schema-defined arguments first (required ones sort first), then Terraform's own.
  let scoped: BlockFrame[] = [...blocks];
  if (blocks[0].type === 'check' && blocks[1]?.type === 'data') scoped = [{ ...blocks[1] }, ...blocks.slice(2)];
  const last = blocks[blocks.length - 1];
  const schema = last.type === 'dynamic' || last.type === 'lifecycle' || last.type === 'connection' || last.type === 'provisioner' ? undefined : blockSchema(schemas, scoped);
  if (schema) {
    for (const [name, at] of Object.entries(schema.attributes).sort()) {
      if (at.computed && !at.optional && !at.required) continue;
      push({
        label: name,
        kind: CompletionItemKind.Property,
        detail: attrDetail(at),
        ...(at.description ? { documentation: { kind: MarkupKind.Markdown, value: at.description } } : {}),
        sortText: `${at.required ? '0' : '1'}${name}`,
        ...(at.deprecated ? { tags: [1] } : {}),
      });
    }
    for (const [name, nb] of Object.entries(schema.blockTypes).sort()) {
      push({
        label: name,
        kind: CompletionItemKind.Struct,
        detail: `block, ${nestedBlockFlags(nb)}`,
        ...(nb.block.description ? { documentation: { kind: MarkupKind.Markdown, value: nb.block.description } } : {}),
        sortText: `${(nb.minItems ?? 0) > 0 ? '0' : '1'}${name}`,
      });
    }
  }
  // A module call: the child module's variables (required when they have no default).
  if (blocks.length === 1 && last.type === 'module' && m) {
    const call = findDecl(m, { kind: 'module', dir: m.dir, name: last.labels[0] ?? '' });
    const child = call && ws.moduleDir(m.dir, call.decl);
    if (child) {
      for (const { decl } of ws.module(child).decls) {
        if (decl.kind !== 'variable') continue;
        const required = !decl.block.attrs.some((x) => x.name === 'default');
        const type = decl.block.attrs.find((x) => x.name === 'type')?.valueText ?? 'any';
        const desc = decl.block.attrs.find((x) => x.name === 'description')?.valueText;
        push({
          label: decl.name,
          kind: CompletionItemKind.Property,
          detail: `${type}, ${required ? 'required' : 'optional'}`,
          ...(desc ? { documentation: unquote(desc) } : {}),
          sortText: `${required ? '0' : '1'}${decl.name}`,
        });
      }
    }
  }
  // required_providers: the providers Foresight carries, with their source and version.
  if (blocks.length === 2 && blocks[0].type === 'terraform' && last.type === 'required_providers') {
    for (const [name, info] of [...schemas.providers].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
      const source = info.address.replace(/^registry\.terraform\.io\//, '');
      const version = BUILTIN_PROVIDERS.find((b) => b.address === info.address)?.version ?? '';
      const body = version ? `source  = "${source}"\n\tversion = "${version}"` : `source = "${source}"`;
      push({ label: name, kind: CompletionItemKind.Module, detail: version ? `${source} ${version}` : source, data: { snippet: `${name} = {\n\t${body}\n}` } });
    }
  }
  const key = builtinKey(blocks);
  const builtin = key ? BUILTIN_BODIES[key] : undefined;
  if (builtin) {
    for (const [name, spec] of Object.entries(builtin)) {
      push({
        label: name,
        kind: spec.kind === 'block' ? CompletionItemKind.Struct : CompletionItemKind.Property,
        detail: spec.kind === 'block' ? 'block' : spec.required ? 'required' : 'optional',
        documentation: spec.doc,
        sortText: `${spec.required ? '0' : '2'}${name}`,
        data: { labels: spec.labels ?? [] },
      });
    }
  }
  return items;
}

function unquote(s: string): string {
  try {
    return s.startsWith('"') ? (JSON.parse(s) as string) : s;
  } catch {
    return s;
  }
}

function variableItem(decl: { name: string; block: { attrs: { name: string; valueText?: string }[] } }): CompletionItem {
  const type = decl.block.attrs.find((x) => x.name === 'type')?.valueText ?? 'any';
  const desc = decl.block.attrs.find((x) => x.name === 'description')?.valueText;
  return { label: decl.name, kind: CompletionItemKind.Variable, detail: type, ...(desc ? { documentation: unquote(desc) } : {}) };
}

function schemaAttrItems(block: Block | undefined): CompletionItem[] {
  if (!block) return [];
  const items: CompletionItem[] = [];
  for (const [name, at] of Object.entries(block.attributes).sort()) {
    items.push({ label: name, kind: CompletionItemKind.Property, detail: attrDetail(at), ...(at.description ? { documentation: { kind: MarkupKind.Markdown, value: at.description } } : {}) });
  }
  for (const [name, nb] of Object.entries(block.blockTypes).sort()) items.push({ label: name, kind: CompletionItemKind.Struct, detail: `block, ${nestedBlockFlags(nb)}` });
  return items;
}

function uniqueSorted(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

function traversalItems(ws: Workspace, schemas: ProviderSchemas, m: ModuleIndex | undefined, blocks: readonly BlockFrame[], steps: string[], iterators: ReadonlySet<string>): CompletionItem[] {
  const decls = m?.decls.map((d) => d.decl) ?? [];
  const [root, s1] = steps;
  const n = steps.length;
  const top = blocks[0];
  switch (root) {
    case 'var':
      return n === 1 ? decls.filter((d) => d.kind === 'variable').sort((x, y) => (x.name < y.name ? -1 : 1)).map(variableItem) : [];
    case 'local':
      if (n !== 1) return [];
      return decls
        .filter((d) => d.kind === 'local')
        .sort((x, y) => (x.name < y.name ? -1 : 1))
        .map((d) => {
          const v = d.block.attrs.find((x) => x.name === d.name)?.valueText ?? '';
          return { label: d.name, kind: CompletionItemKind.Variable, detail: v.length > 60 ? `${v.slice(0, 57)}...` : v };
        });
    case 'module': {
      if (n === 1) return decls.filter((d) => d.kind === 'module').sort((x, y) => (x.name < y.name ? -1 : 1)).map((d) => ({ label: d.name, kind: CompletionItemKind.Module, detail: 'module' }));
      if (n !== 2 || !m) return [];
      const call = findDecl(m, { kind: 'module', dir: m.dir, name: s1 });
      const child = call && ws.moduleDir(m.dir, call.decl);
      if (!child) return [];
      return ws
        .module(child)
        .decls.filter((x) => x.decl.kind === 'output')
        .map((x) => x.decl)
        .sort((x, y) => (x.name < y.name ? -1 : 1))
        .map((d) => {
          const desc = d.block.attrs.find((x) => x.name === 'description')?.valueText;
          return { label: d.name, kind: CompletionItemKind.Field, detail: 'output', ...(desc ? { documentation: unquote(desc) } : {}) };
        });
    }
    case 'data':
      if (n === 1) return uniqueSorted(decls.filter((d) => d.kind === 'data').map((d) => d.type!)).map((t) => ({ label: t, kind: CompletionItemKind.Class, detail: 'data source type' }));
      if (n === 2) return uniqueSorted(decls.filter((d) => d.kind === 'data' && d.type === s1).map((d) => d.name)).map((x) => ({ label: x, kind: CompletionItemKind.Variable, detail: `data.${s1}` }));
      if (n === 3) return schemaAttrItems(schemas.dataSources.get(s1)?.schema.block);
      return [];
    case 'each':
      return n === 1 && top && hasArg(m, top, 'for_each')
        ? [
            { label: 'key', kind: CompletionItemKind.Field, detail: 'the map key or set element of this instance' },
            { label: 'value', kind: CompletionItemKind.Field, detail: 'the map value or set element of this instance' },
          ]
        : [];
    case 'count':
      return n === 1 && top && hasArg(m, top, 'count') ? [{ label: 'index', kind: CompletionItemKind.Field, detail: 'number: the index of this instance' }] : [];
    case 'path':
      return n === 1
        ? [
            { label: 'cwd', kind: CompletionItemKind.Field, detail: 'string: the working directory' },
            { label: 'module', kind: CompletionItemKind.Field, detail: 'string: the directory of this module' },
            { label: 'root', kind: CompletionItemKind.Field, detail: 'string: the directory of the root module' },
          ]
        : [];
    case 'terraform':
      return n === 1 ? [{ label: 'workspace', kind: CompletionItemKind.Field, detail: 'string: the selected workspace' }] : [];
    case 'self':
      return n === 1 && top?.type === 'resource' ? schemaAttrItems(schemas.resources.get(top.labels[0] ?? '')?.schema.block) : [];
    default: {
      if (RESERVED_ROOTS.has(root)) return [];
      // The iterator of an enclosing dynamic block (its label, or its `iterator` argument).
      if (n === 1 && iterators.has(root)) {
        return [
          { label: 'key', kind: CompletionItemKind.Field, detail: `the key or index of the current element of ${root}` },
          { label: 'value', kind: CompletionItemKind.Field, detail: `the current element of ${root}` },
        ];
      }
      if (!m?.resourceTypes.has(root)) return [];
      if (n === 1) return uniqueSorted(decls.filter((d) => d.kind === 'resource' && d.type === root).map((d) => d.name)).map((x) => ({ label: x, kind: CompletionItemKind.Variable, detail: root }));
      if (n === 2) return schemaAttrItems(schemas.resources.get(root)?.schema.block);
      return [];
    }
  }
}

/** True when the top-level block the cursor is in (as indexed) sets the argument `name`. */
function hasArg(m: ModuleIndex | undefined, top: BlockFrame, name: string): boolean {
  if (!m) return true;
  const decl = m.decls.find(
    ({ decl }) => decl.block.type === top.type && decl.block.labels.map((l) => l.name).join('\0') === top.labels.join('\0'),
  );
  return decl ? decl.decl.block.attrs.some((x) => x.name === name) : true;
}

const ROOTS: [string, string][] = [
  ['var', 'input variables'],
  ['local', 'local values'],
  ['module', 'module outputs'],
  ['data', 'data sources'],
  ['path', 'filesystem paths'],
  ['terraform', 'terraform.workspace'],
];

/** `name` and `name.alias` of the module's provider blocks, sorted. */
export function providerRefs(m: ModuleIndex | undefined): string[] {
  const out = new Set<string>();
  for (const { decl } of m?.decls ?? []) {
    if (decl.kind !== 'provider') continue;
    const alias = decl.block.attrs.find((a) => a.name === 'alias')?.valueText?.match(/^"([A-Za-z_][\w-]*)"$/)?.[1];
    out.add(alias ? `${decl.name}.${alias}` : decl.name);
  }
  return [...out].sort();
}

const TYPE_KEYWORDS: [string, string, string][] = [
  ['string', 'string', 'a Unicode string'],
  ['number', 'number', 'a number'],
  ['bool', 'bool', 'true or false'],
  ['list', 'list(${1:string})', 'a list of values of one type'],
  ['set', 'set(${1:string})', 'a set of unique values of one type'],
  ['map', 'map(${1:string})', 'a map from strings to values of one type'],
  ['object', 'object({\n\t${1:name} = ${2:string}\n})', 'named attributes, each with its own type'],
  ['tuple', 'tuple([${1:string}])', 'a sequence of values, each with its own type'],
  ['optional', 'optional(${1:string})', 'an optional object attribute (with an optional default)'],
  ['any', 'any', 'any type, decided from the value'],
];

let functionList: [string, string][] | undefined;

/** Function names (without the console-only `type`) with their signatures, computed once. */
function functionDetails(): [string, string][] {
  return (functionList ??= Object.keys(allFunctions)
    .filter((n) => n !== 'type')
    .sort()
    .map((n) => [n, signatureOf(n, allFunctions[n]).label]));
}

function rootItems(schemas: ProviderSchemas, m: ModuleIndex | undefined, blocks: readonly BlockFrame[], attribute: string | undefined): CompletionItem[] {
  const items: CompletionItem[] = [];
  const attr = attribute ? schemaAttribute(schemas, blocks, attribute) : undefined;
  const top0 = blocks[0];
  if (attribute === 'provider' && blocks.length === 1 && top0 && ['resource', 'data', 'ephemeral'].includes(top0.type)) {
    // The provider configurations of the module: `name` and `name.alias`.
    for (const ref of providerRefs(m)) items.push({ label: ref, kind: CompletionItemKind.Module, detail: 'provider configuration', sortText: `0${ref}` });
  }
  if (attr) {
    for (const v of enumValues(attr)) items.push({ label: JSON.stringify(v), kind: CompletionItemKind.EnumMember, detail: `allowed value of ${attribute}`, sortText: `0${v}` });
    if (attr.type?.kind === 'bool') for (const v of ['true', 'false']) items.push({ label: v, kind: CompletionItemKind.Value, detail: 'bool', sortText: `0${v}` });
  }
  ROOTS.forEach(([r, d], i) => items.push({ label: r, kind: CompletionItemKind.Keyword, detail: d, sortText: `1${i}${r}` }));
  const top = blocks[0];
  if (top && ['resource', 'data', 'module', 'ephemeral'].includes(top.type)) {
    if (hasArg(m, top, 'count')) items.push({ label: 'count', kind: CompletionItemKind.Keyword, detail: 'count.index', sortText: '1count' });
    if (hasArg(m, top, 'for_each')) items.push({ label: 'each', kind: CompletionItemKind.Keyword, detail: 'each.key, each.value', sortText: '1each' });
  }
  if (top?.type === 'resource' && blocks.some((x) => x.type === 'provisioner' || x.type === 'connection' || x.type === 'postcondition')) {
    items.push({ label: 'self', kind: CompletionItemKind.Keyword, detail: 'this resource instance', sortText: '1self' });
  }
  for (const t of uniqueSorted((m?.decls ?? []).filter((d) => d.decl.kind === 'resource').map((d) => d.decl.type!))) {
    items.push({ label: t, kind: CompletionItemKind.Class, detail: 'resource type', sortText: `2${t}` });
  }
  for (const [name, detail] of functionDetails()) items.push({ label: name, kind: CompletionItemKind.Function, detail, sortText: `3${name}` });
  if (!attr || attr.type?.kind !== 'bool') for (const v of ['true', 'false', 'null']) items.push({ label: v, kind: CompletionItemKind.Keyword, detail: 'literal', sortText: `4${v}` });
  else items.push({ label: 'null', kind: CompletionItemKind.Keyword, detail: 'literal', sortText: '4null' });
  return items;
}

export function signatureHelp(ws: Workspace, p: SignatureHelpParams): SignatureHelp | null {
  const doc = ws.session.documents.get(p.textDocument.uri);
  if (!doc) return null;
  const text = doc.text;
  const offset = offsetAt(text, p.position);
  const call = enclosingCall(text.slice(0, offset));
  if (!call) return null;
  const spec = allFunctions[call.name];
  if (!spec || call.name === 'type') return null;
  const sig = signatureOf(call.name, spec);
  const n = spec.params.length;
  const active = spec.varParam ? Math.min(call.argument, n) : call.argument;
  if (!spec.varParam && active >= n && n > 0) return { signatures: [sig], activeSignature: 0, activeParameter: n - 1 };
  return { signatures: [sig], activeSignature: 0, activeParameter: active };
}

export { findDecl };
