// The differ and renderers of Terraform's human plan output (internal/command/jsonformat/differ, computed,
// computed/renderers, jsondiff), working on marked Values instead of plan JSON.
//
// Contract: `diffBlock(before, after, block, replacePaths)` and `diffOutput(before, after)` return a Diff whose
// `render(indent, opts)` gives the text Terraform prints after `resource "t" "n" ` / `name = `, byte for byte:
// attribute alignment, `(known after apply)`, `(sensitive value)`, `-> null`, `# forces replacement`,
// `# (N unchanged attributes hidden)`, colours through colorstring markup. Pure functions; never throws for
// any value shape (unknown types render as their JSON-like form).

import { colorize as colorizeText } from '../../../cli/state/meta';
import { goQuote as goQuoteRunes } from '../../../lang/format';
import { compareBytes, isFullyKnownType } from '../../../lang/types';
import type { Type } from '../../../lang/types';
import { Value } from '../../../lang/value';
import type { Action } from '../../../plans/plan';
import type { Path } from '../../../providers/path';
import type { Attribute, Block, NestedBlock } from '../../../providers/schema';

// The renderer quotes and colours thousands of short strings per plan; these two keep the common cases cheap.
/** strconv.Quote: printable ASCII without quotes or backslashes is quoted as is, anything else rune by rune. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
function goQuote(s: string): string {
  return PLAIN_ASCII.test(s) ? `"${s}"` : goQuoteRunes(s);
}
/** colorize, remembered for the renderer's few fixed fragments (symbols, "null", "# forces replacement"). */
const colorized = [new Map<string, string>(), new Map<string, string>()];
function colorize(s: string, color: boolean): string {
  const m = colorized[color ? 1 : 0];
  let r = m.get(s);
  if (r === undefined) {
    r = colorizeText(s, color);
    if (m.size < 256) m.set(s, r);
  }
  return r;
}

export interface RenderOpts {
  color: boolean;
  overrideNullSuffix?: boolean;
  overrideForcesReplacement?: boolean;
  showUnchangedChildren?: boolean;
}

/** A computed diff: the action, whether it forces replacement, and how to render it. */
export interface Diff {
  readonly action: Action;
  readonly replace: boolean;
  readonly kind: 'primitive' | 'object' | 'map' | 'list' | 'set' | 'unknown' | 'sensitive' | 'typechange' | 'block';
  render(indent: number, o: RenderOpts): string;
}

// ---- shared formatting helpers -------------------------------------------------------------------------------

export function diffActionSymbol(a: Action): string {
  switch (a) {
    case 'DeleteThenCreate':
      return '[red]-[reset]/[green]+[reset]';
    case 'CreateThenDelete':
      return '[green]+[reset]/[red]-[reset]';
    case 'Create':
      return '  [green]+[reset]';
    case 'Delete':
      return '  [red]-[reset]';
    case 'Read':
      return ' [cyan]<=[reset]';
    case 'Update':
      return '  [yellow]~[reset]';
    case 'NoOp':
      return '   ';
    case 'Forget':
      return ' [red].[reset]';
    default:
      return '  ?';
  }
}

const indentOf = (n: number) => '    '.repeat(n);
const sym = (a: Action, o: RenderOpts) => `${colorize(diffActionSymbol(a), o.color)} `;
const nullSuffix = (a: Action, o: RenderOpts) => (!o.overrideNullSuffix && a === 'Delete' ? colorize(' [dark_gray]-> null[reset]', o.color) : '');
const forces = (r: boolean, o: RenderOpts) => (r || o.overrideForcesReplacement ? colorize(' [red]# forces replacement[reset]', o.color) : '');
const arrow = (o: RenderOpts) => colorize('[yellow]->[reset]', o.color);
const unchanged = (n: number, noun: string, o: RenderOpts) => colorize(`[dark_gray]# (${n} unchanged ${noun}${n === 1 ? '' : 's'} hidden)[reset]`, o.color);

const IDENT = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_-]*$/u;
export function ensureValidAttributeName(k: string): string {
  return IDENT.test(k) ? k : goQuote(k);
}

const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length));
const sortedKeys = (ks: Iterable<string>) => [...ks].sort(compareBytes);
const IMPORTANT = new Set(['id', 'name', 'tags']);

function compareActions(cur: Action, next: Action): Action {
  if (next === 'NoOp') return cur;
  if (cur !== next) return 'Update';
  return cur;
}

// ---- the change being diffed --------------------------------------------------------------------------------

/** One side is `undefined` when absent or null (JSON nil). Explicit flags as in structured.Change. */
interface Change {
  before?: Value;
  after?: Value;
  bExp: boolean;
  aExp: boolean;
  path: string[];
  replace: ReadonlySet<string>;
  /**
   * Set below a block using a feature the legacy SDK could not express (structured.Change.NonLegacySchema); until
   * then an empty string is rendered as null, because legacy providers return either for an unset string.
   */
  nonLegacy?: boolean;
}

const norm = (v: Value | undefined): Value | undefined => (v === undefined || (v.isKnown && v.isNull) ? undefined : v);
const pathKey = (p: string[]) => p.join('\u0000');

function child(c: Change, step: string, b: Value | undefined, a: Value | undefined): Change {
  return { before: norm(b), after: norm(a), bExp: false, aExp: false, path: [...c.path, step], replace: c.replace, nonLegacy: c.nonLegacy };
}

/** Whether a block uses what the legacy SDK could not produce (Terraform's containsNonLegacyFeatures). */
function containsNonLegacyFeatures(b: Block): boolean {
  for (const nb of Object.values(b.blockTypes)) if (nb.nesting === 'map' || nb.nesting === 'group') return true;
  for (const a of Object.values(b.attributes)) {
    if (a.nestedType || !a.type) return true;
    const t = a.type;
    if (!isFullyKnownType(t) || t.kind === 'tuple' || t.kind === 'object') return true;
    if ((t.kind === 'list' || t.kind === 'set' || t.kind === 'map') && (t.elem.kind === 'list' || t.elem.kind === 'set' || t.elem.kind === 'map')) {
      const inner = t.elem.elem;
      if (!(inner.kind === 'string' || inner.kind === 'number' || inner.kind === 'bool')) return true;
    }
  }
  return false;
}

/** A legacy schema's empty string is null (Terraform's ComputeDiffForType fix-up), on a copy of the change. */
function legacyEmptyStringsAsNull(c: Change): Change {
  if (c.nonLegacy) return c;
  const e = (v: Value | undefined) => (v && v.isKnown && v.type.kind === 'string' && !v.isSensitive && v.str === '' ? undefined : v);
  const b = e(c.before);
  const a = e(c.after);
  return b === c.before && a === c.after ? c : { ...c, before: b, after: a };
}

function replaceMatches(c: Change): boolean {
  return c.replace.has(pathKey(c.path));
}

/** Canonical text of a value for equality as reflect.DeepEqual on plan JSON (unknowns compare as null). */
function canon(v: Value | undefined): string {
  if (v === undefined || !v.isKnown || v.isNull) return 'null';
  switch (v.type.kind) {
    case 'string':
      return JSON.stringify(v.str);
    case 'number':
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'list':
    case 'set':
    case 'tuple':
      return '[' + v.elems.map(canon).join(',') + ']';
    case 'map':
    case 'object':
      return '{' + sortedKeys(v.entries.keys()).map((k) => JSON.stringify(k) + ':' + canon(v.entries.get(k))).join(',') + '}';
    default:
      return 'null';
  }
}

/** Sensitivity signature, so a value whose marks changed is not a no-op. */
function sensSig(v: Value | undefined): string {
  if (v === undefined) return '';
  if (v.isSensitive) return 'S';
  if (!v.isKnown || v.isNull) return '';
  const k = v.type.kind;
  if (k === 'list' || k === 'set' || k === 'tuple') return '[' + v.elems.map(sensSig).join(',') + ']';
  if (k === 'map' || k === 'object') return '{' + sortedKeys(v.entries.keys()).map((x) => sensSig(v.entries.get(x))).join(',') + '}';
  return '';
}

function calculateAction(c: Change): Action {
  const bNil = c.before === undefined;
  const aNil = c.after === undefined;
  if (bNil && !c.bExp && (!aNil || c.aExp)) return 'Create';
  if (aNil && !c.aExp && (!bNil || c.bExp)) return 'Delete';
  if (canon(c.before) === canon(c.after) && c.aExp === c.bExp && sensSig(c.before) === sensSig(c.after) && c.after?.isKnown !== false) return 'NoOp';
  return 'Update';
}

function defaultIterAction(c: Change): Action {
  if (c.before === undefined && c.after === undefined) return 'NoOp';
  if (c.before === undefined) return 'Create';
  if (c.after === undefined) return 'Delete';
  return 'NoOp';
}

// ---- renderers ------------------------------------------------------------------------------------------------

function mk(kind: Diff['kind'], action: Action, replace: boolean, render: Diff['render']): Diff {
  return { kind, action, replace, render };
}

function renderPrimitiveValue(v: Value | undefined, o: RenderOpts): string {
  if (v === undefined || v.isNull) return colorize('[dark_gray]null[reset]', o.color);
  switch (v.type.kind) {
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'number':
      return v.num.toString();
    case 'string':
      return goQuote(v.str);
    default:
      return canon(v);
  }
}

interface EvalStr {
  isNull?: boolean;
  str: string;
  multiline?: boolean;
  json?: unknown;
}

function evalString(v: Value | undefined): EvalStr {
  if (v === undefined || v.isNull) return { isNull: true, str: '' };
  const s = v.str;
  if (s.startsWith('{') || s.startsWith('[')) {
    try {
      return { str: s, json: JSON.parse(s) };
    } catch {
      // not JSON
    }
  }
  if (s.includes('\n')) return { str: s.trim(), multiline: true };
  return { str: s };
}

function renderSimple(e: EvalStr, o: RenderOpts): string {
  return e.isNull ? colorize('[dark_gray]null[reset]', o.color) : goQuote(e.str);
}

function primitive(c: Change, type: 'string' | 'number' | 'bool' | 'other', action: Action, replace: boolean): Diff {
  const { before, after } = c;
  return mk('primitive', action, replace, (indent, o) => {
    if (type === 'string') return renderStringDiff(before, after, action, replace, indent, o);
    const b = renderPrimitiveValue(before, o);
    const a = renderPrimitiveValue(after, o);
    switch (action) {
      case 'Create':
        return `${a}${forces(replace, o)}`;
      case 'Delete':
        return `${b}${nullSuffix(action, o)}${forces(replace, o)}`;
      case 'NoOp':
        return `${b}${forces(replace, o)}`;
      default:
        return `${b} ${arrow(o)} ${a}${forces(replace, o)}`;
    }
  });
}

function multilineLines(s: string, indent: number, o: RenderOpts): string[] {
  const lines = s.split('\n').map((l) => `${indentOf(indent + 1)}${sym('NoOp', o)}${l}`);
  return lines;
}

/** A parsed JSON document as a Value of its JSON shape (objects, tuples, strings, numbers, bools, nulls). */
function jsonToValue(j: unknown): Value {
  if (j === null) return Value.null();
  if (typeof j === 'string') return Value.string(j);
  if (typeof j === 'number') return Value.number(j);
  if (typeof j === 'boolean') return Value.bool(j);
  if (Array.isArray(j)) return Value.tuple(j.map(jsonToValue));
  return Value.object(new Map(Object.entries(j as Record<string, unknown>).map(([k, x]) => [k, jsonToValue(x)])));
}

/** renderStringDiffAsJson: strings holding JSON documents are shown as jsonencode(...) with a JSON diff inside. */
function renderJsonStringDiff(b: EvalStr, a: EvalStr, action: Action, replace: boolean, indent: number, o: RenderOpts): string {
  const side = (e: EvalStr) => (e.json === undefined ? undefined : jsonToValue(e.json));
  const jd = diffJSON({ before: side(b), after: side(a), bExp: false, aExp: false, path: [], replace: new Set() });
  let act = action;
  let whitespace = '';
  let rep = '';
  let jo = o;
  if (jd.action === 'NoOp' && action === 'Update') {
    whitespace = replace ? ' # whitespace changes force replacement' : ' # whitespace changes';
    jo = { ...o, showUnchangedChildren: true };
    act = 'NoOp';
  } else rep = forces(replace, o);
  const r = jd.render(indent + 1, jo);
  if (action === 'Create' || action === 'Delete') act = 'NoOp';
  if (r.includes('\n')) return `jsonencode(${whitespace}\n${indentOf(indent + 1)}${sym(act, o)}${r}${rep}\n${indentOf(indent + 1)})`;
  return `jsonencode(${r})${whitespace}${rep}`;
}

function renderStringDiff(before: Value | undefined, after: Value | undefined, action: Action, replace: boolean, indent: number, o: RenderOpts): string {
  {
    const none: EvalStr = { isNull: true, str: '' };
    const b = evalString(before);
    const a = evalString(after);
    if ((action === 'Create' || action === 'NoOp') && a.json !== undefined) return renderJsonStringDiff(action === 'NoOp' ? a : none, a, action, replace, indent, o);
    if (action === 'Delete' && b.json !== undefined) return renderJsonStringDiff(b, none, action, replace, indent, o);
    if (action !== 'Create' && action !== 'NoOp' && action !== 'Delete' && b.json !== undefined && a.json !== undefined) return renderJsonStringDiff(b, a, action, replace, indent, o);
  }
  let lines: string[];
  const heredoc = (ls: string[]) => `<<-EOT${forces(replace, o)}\n${ls.join('\n')}\n${indentOf(indent)}${sym('NoOp', o)}EOT${nullSuffix(action, o)}`;
  switch (action) {
    case 'Create':
    case 'NoOp': {
      const s = evalString(after);
      if (!s.multiline) return `${renderSimple(s, o)}${forces(replace, o)}`;
      lines = multilineLines(s.str, indent, o);
      break;
    }
    case 'Delete': {
      const s = evalString(before);
      if (s.isNull) return `${renderSimple(s, o)}${forces(replace, o)}`;
      if (!s.multiline) return `${renderSimple(s, o)}${nullSuffix(action, o)}${forces(replace, o)}`;
      lines = multilineLines(s.str, indent, o);
      break;
    }
    default: {
      const b = evalString(before);
      const a = evalString(after);
      if (!b.multiline && !a.multiline) return `${renderSimple(b, o)} ${arrow(o)} ${renderSimple(a, o)}${forces(replace, o)}`;
      const bl = b.isNull ? [] : b.str.split('\n');
      const al = a.isNull ? [] : a.str.split('\n');
      lines = [];
      sliceDiff(bl, al, (x, y) => x === y, (bi, ai) => {
        const p = indentOf(indent + 1);
        if (bi !== undefined && ai !== undefined) lines.push(`${p}${sym('NoOp', o)}${al[ai]}`);
        else if (bi !== undefined) lines.push(`${p}${sym('Delete', o)}${bl[bi]}`);
        else lines.push(`${p}${sym('Create', o)}${al[ai!]}`);
      });
      break;
    }
  }
  return heredoc(lines);
}

function unknownDiff(action: Action, replace: boolean, before?: Diff): Diff {
  return mk('unknown', action, replace, (indent, o) => {
    if (action === 'Create' || !before) return `(known after apply)${forces(replace, o)}`;
    return `${before.render(indent, { ...o, overrideNullSuffix: true })} -> (known after apply)${forces(replace, o)}`;
  });
}

function sensitiveDiff(action: Action, replace: boolean): Diff {
  return mk('sensitive', action, replace, (_i, o) => `(sensitive value)${nullSuffix(action, o)}${forces(replace, o)}`);
}

function objectDiff(attrs: Map<string, Diff>, action: Action, replace: boolean): Diff {
  return mk('object', action, replace, (indent, o) => {
    if (attrs.size === 0) return `{}${nullSuffix(action, o)}${forces(replace, o)}`;
    const ao: RenderOpts = { ...o, overrideNullSuffix: true };
    const keys = sortedKeys(attrs.keys());
    const width = Math.max(...keys.map((k) => ensureValidAttributeName(k).length));
    let out = `{${forces(replace, o)}\n`;
    let hidden = 0;
    for (const k of keys) {
      const d = attrs.get(k)!;
      if (IMPORTANT.has(k)) {
        const io: RenderOpts = { ...ao, showUnchangedChildren: true };
        out += `${indentOf(indent + 1)}${sym(d.action, io)}${pad(ensureValidAttributeName(k), width)} = ${d.render(indent + 1, io)}\n`;
        continue;
      }
      if (d.action === 'NoOp' && !o.showUnchangedChildren) {
        hidden++;
        continue;
      }
      out += `${indentOf(indent + 1)}${sym(d.action, ao)}${pad(ensureValidAttributeName(k), width)} = ${d.render(indent + 1, ao)}\n`;
    }
    if (hidden) out += `${indentOf(indent + 1)}${sym('NoOp', o)}${unchanged(hidden, 'attribute', o)}\n`;
    return out + `${indentOf(indent)}${sym('NoOp', o)}}${nullSuffix(action, o)}`;
  });
}

function mapDiff(elems: Map<string, Diff>, action: Action, replace: boolean): Diff {
  return mk('map', action, replace, (indent, o) => {
    if (elems.size === 0) return `{}${nullSuffix(action, o)}${forces(replace, o)}`;
    const eo: RenderOpts = { ...o, overrideNullSuffix: true };
    const keys = sortedKeys(elems.keys());
    const width = Math.max(...keys.map((k) => goQuote(k).length));
    let out = `{${forces(replace, o)}\n`;
    let hidden = 0;
    for (const k of keys) {
      const d = elems.get(k)!;
      if (d.action === 'NoOp' && !o.showUnchangedChildren) {
        hidden++;
        continue;
      }
      const comma = d.kind === 'object' ? ',' : '';
      out += `${indentOf(indent + 1)}${sym(d.action, eo)}${pad(goQuote(k), width)} = ${d.render(indent + 1, eo)}${comma}\n`;
    }
    if (hidden) out += `${indentOf(indent + 1)}${sym('NoOp', o)}${unchanged(hidden, 'element', o)}\n`;
    return out + `${indentOf(indent)}${sym('NoOp', o)}}${nullSuffix(action, o)}`;
  });
}

function listDiff(elems: Diff[], action: Action, replace: boolean, displayContext: boolean): Diff {
  return mk('list', action, replace, (indent, o) => {
    if (elems.length === 0) return `[]${nullSuffix(action, o)}${forces(replace, o)}`;
    const eo: RenderOpts = { ...o, overrideNullSuffix: true };
    const uo: RenderOpts = { ...o, showUnchangedChildren: true };
    let pending: Diff[] = [];
    let renderNext = false;
    let out = `[${forces(replace, o)}\n`;
    for (const e of elems) {
      if (e.action === 'NoOp' && !renderNext && !o.showUnchangedChildren) {
        pending.push(e);
        continue;
      }
      renderNext = false;
      let opts = eo;
      if (displayContext) {
        if (pending.length > 1) out += `${indentOf(indent + 1)}${sym('NoOp', opts)}${unchanged(pending.length - 1, 'element', opts)}\n`;
        if (pending.length > 0) {
          const last = pending[pending.length - 1];
          out += `${indentOf(indent + 1)}${sym(last.action, uo)}${last.render(indent + 1, uo)},\n`;
        }
        pending = [];
        if (e.action === 'NoOp') opts = uo;
        else renderNext = true;
      }
      out += `${indentOf(indent + 1)}${sym(e.action, opts)}${e.render(indent + 1, opts)},\n`;
    }
    if (pending.length) out += `${indentOf(indent + 1)}${sym('NoOp', o)}${unchanged(pending.length, 'element', o)}\n`;
    return out + `${indentOf(indent)}${sym('NoOp', o)}]${nullSuffix(action, o)}`;
  });
}

function setDiff(elems: Diff[], action: Action, replace: boolean): Diff {
  return mk('set', action, replace, (indent, o) => {
    const self = replace && !o.overrideForcesReplacement;
    const kids = replace && !!o.overrideForcesReplacement;
    if (elems.length === 0) return `[]${nullSuffix(action, o)}${forces(self, { ...o, overrideForcesReplacement: false })}`;
    const eo: RenderOpts = { ...o, overrideNullSuffix: true, overrideForcesReplacement: kids };
    let out = `[${forces(self, { ...o, overrideForcesReplacement: false })}\n`;
    let hidden = 0;
    for (const e of elems) {
      if (e.action === 'NoOp' && !o.showUnchangedChildren) {
        hidden++;
        continue;
      }
      out += `${indentOf(indent + 1)}${sym(e.action, eo)}${e.render(indent + 1, eo)},\n`;
    }
    if (hidden) out += `${indentOf(indent + 1)}${sym('NoOp', o)}${unchanged(hidden, 'element', o)}\n`;
    return out + `${indentOf(indent)}${sym('NoOp', o)}]${nullSuffix(action, o)}`;
  });
}

function typeChangeDiff(b: Diff, a: Diff, action: Action, replace: boolean): Diff {
  return mk('typechange', action, replace, (indent, o) => {
    const oo = { ...o, overrideNullSuffix: true };
    return `${b.render(indent, oo)} ${arrow(o)} ${a.render(indent, oo)}`;
  });
}

// ---- LCS slice processing (collections.ProcessSlice) ------------------------------------------------------------

function lcs<T>(xs: T[], ys: T[], eq: (a: T, b: T) => boolean): T[] {
  const n = xs.length;
  const m = ys.length;
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = eq(xs[i], ys[j]) ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (eq(xs[i], ys[j])) {
      out.push(xs[i]);
      i++;
      j++;
    } else if (L[i + 1][j] >= L[i][j + 1]) i++;
    else j++;
  }
  return out;
}

function sliceDiff<T>(before: T[], after: T[], eq: (a: T, b: T) => boolean, process: (bi: number | undefined, ai: number | undefined) => void, isObj: (v: T) => boolean = () => false): void {
  const common = lcs(before, after, eq);
  let bi = 0;
  let ai = 0;
  let li = 0;
  while (bi < before.length || ai < after.length || li < common.length) {
    while (bi < before.length && (li >= common.length || !eq(before[bi], common[li]))) {
      const objDiff = isObj(before[bi]) && ai < after.length && isObj(after[ai]) && (li >= common.length || !eq(after[ai], common[li]));
      if (objDiff) {
        process(bi, ai);
        bi++;
        ai++;
        continue;
      }
      process(bi, undefined);
      bi++;
    }
    while (ai < after.length && (li >= common.length || !eq(after[ai], common[li]))) {
      process(undefined, ai);
      ai++;
    }
    if (li < common.length) {
      process(bi, ai);
      bi++;
      ai++;
      li++;
    }
  }
}

// ---- the differ -----------------------------------------------------------------------------------------------

function sensitiveOrUnknown(c: Change, recurse: (c: Change) => Diff): Diff | undefined {
  if (c.before?.isSensitive || c.after?.isSensitive) {
    const cc = { ...c, after: c.after && !c.after.isKnown ? c.after : c.after };
    let action = calculateAction(cc);
    if (c.after && !c.after.isKnown) action = c.before === undefined ? 'Create' : 'Update';
    return sensitiveDiff(action, replaceMatches(c));
  }
  if (c.after && !c.after.isKnown) {
    if (c.before === undefined) return unknownDiff('Create', replaceMatches(c));
    const del: Change = { ...c, after: undefined, aExp: false };
    return unknownDiff('Update', replaceMatches(c), recurse(del));
  }
  return undefined;
}

type JKind = 'null' | 'string' | 'number' | 'bool' | 'object' | 'array';
function jkind(v: Value | undefined): JKind {
  if (v === undefined || !v.isKnown || v.isNull) return 'null';
  switch (v.type.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return v.type.kind;
    case 'list':
    case 'set':
    case 'tuple':
      return 'array';
    case 'map':
    case 'object':
      return 'object';
    default:
      return 'null';
  }
}

/** jsondiff Transform: values of dynamic type (outputs, dynamic attributes) diffed by their JSON shape. */
function diffJSON(c: Change): Diff {
  const su = sensitiveOrUnknown(c, diffJSON);
  if (su) return su;
  const bt = jkind(c.before);
  const at = jkind(c.after);
  const deleted = at === 'null' && !c.aExp;
  const created = bt === 'null' && !c.bExp;
  if (bt === at || created || deleted) return jsonUpdate(c, bt === 'null' ? at : bt);
  const b = jsonUpdate({ ...c, after: undefined, aExp: false }, bt);
  const a = jsonUpdate({ ...c, before: undefined, bExp: false }, at);
  return typeChangeDiff(b, a, 'Update', replaceMatches(c));
}

function jsonUpdate(c: Change, k: JKind): Diff {
  switch (k) {
    case 'object': {
      let action = defaultIterAction(c);
      const keys = new Set<string>();
      const be = c.before?.entries;
      const ae = c.after?.entries;
      for (const x of be?.keys() ?? []) keys.add(x);
      for (const x of ae?.keys() ?? []) keys.add(x);
      const attrs = new Map<string, Diff>();
      for (const key of keys) {
        const d = diffJSON(child(c, key, be?.get(key), ae?.get(key)));
        attrs.set(key, d);
        action = compareActions(action, d.action);
      }
      return objectDiff(attrs, action, replaceMatches(c));
    }
    case 'array': {
      const bs = c.before?.elems ?? [];
      const as = c.after?.elems ?? [];
      let action = defaultIterAction(c);
      const out: Diff[] = [];
      sliceDiff(
        [...bs],
        [...as],
        (x, y) => canon(x) === canon(y),
        (bi, ai) => {
          const d = diffJSON(child(c, String(ai ?? bi), bi === undefined ? undefined : bs[bi], ai === undefined ? undefined : as[ai]));
          out.push(d);
          action = compareActions(action, d.action);
        },
        () => true,
      );
      return listDiff(out, action, replaceMatches(c), true);
    }
    case 'string':
      return primitive(c, 'string', calculateAction(c), replaceMatches(c));
    case 'number':
    case 'bool':
      return primitive(c, k, calculateAction(c), replaceMatches(c));
    default:
      return primitive(c, 'other', calculateAction(c), replaceMatches(c));
  }
}

/** Diff of a value of a schema type. */
function diffType(c: Change, t: Type): Diff {
  const su = sensitiveOrUnknown(c, (x) => diffType(x, t));
  if (su) return su;
  switch (t.kind) {
    case 'dynamic':
      // jsondiff never marks replacements (RendererJsonOpts passes replace=false).
      return diffJSON({ ...c, replace: new Set() });
    case 'string': {
      const cc = legacyEmptyStringsAsNull(c);
      return primitive(cc, t.kind, calculateAction(cc), replaceMatches(cc));
    }
    case 'number':
    case 'bool':
      return primitive(c, t.kind, calculateAction(c), replaceMatches(c));
    case 'object': {
      let action = defaultIterAction(c);
      const attrs = new Map<string, Diff>();
      const be = c.before?.entries;
      const ae = c.after?.entries;
      for (const [k, at] of t.attrs) {
        const cc = child(c, k, be?.get(k), ae?.get(k));
        const d = diffType(cc, at);
        if (d.action === 'NoOp' && cc.before === undefined && cc.after === undefined) continue;
        attrs.set(k, d);
        action = compareActions(action, d.action);
      }
      return objectDiff(attrs, action, replaceMatches(c));
    }
    case 'map': {
      let action = defaultIterAction(c);
      const be = c.before?.entries;
      const ae = c.after?.entries;
      const keys = new Set<string>([...(be?.keys() ?? []), ...(ae?.keys() ?? [])]);
      const elems = new Map<string, Diff>();
      for (const k of keys) {
        const d = diffType(child(c, k, be?.get(k), ae?.get(k)), t.elem);
        elems.set(k, d);
        action = compareActions(action, d.action);
      }
      return mapDiff(elems, action, replaceMatches(c));
    }
    case 'list':
    case 'tuple': {
      const bs = [...(c.before?.elems ?? [])];
      const as = [...(c.after?.elems ?? [])];
      let action = defaultIterAction(c);
      const out: Diff[] = [];
      const et = (i: number) => (t.kind === 'list' ? t.elem : t.elems[i] ?? ({ kind: 'dynamic' } as Type));
      if (t.kind === 'tuple') {
        for (let i = 0; i < Math.max(bs.length, as.length); i++) {
          const d = diffType(child(c, String(i), bs[i], as[i]), et(i));
          out.push(d);
          action = compareActions(action, d.action);
        }
      } else {
        sliceDiff(bs, as, (x, y) => canon(x) === canon(y), (bi, ai) => {
          const d = diffType(child(c, String(ai ?? bi), bi === undefined ? undefined : bs[bi], ai === undefined ? undefined : as[ai]), et(0));
          out.push(d);
          action = compareActions(action, d.action);
        }, () => t.kind === 'list' && t.elem.kind === 'object');
      }
      return listDiff(out, action, replaceMatches(c), true);
    }
    case 'set': {
      const bs = [...(c.before?.elems ?? [])];
      const as = [...(c.after?.elems ?? [])];
      let action = defaultIterAction(c);
      const out: Diff[] = [];
      const ak = as.map(canon);
      const bk = bs.map(canon);
      for (let i = 0; i < bs.length; i++) {
        const j = ak.indexOf(bk[i]);
        const d = diffType(child(c, 's' + i, bs[i], j >= 0 ? as[j] : undefined), t.elem);
        out.push(d);
        action = compareActions(action, d.action);
      }
      for (let j = 0; j < as.length; j++) {
        if (bk.includes(ak[j])) continue;
        const d = diffType(child(c, 's' + j, undefined, as[j]), t.elem);
        out.push(d);
        action = compareActions(action, d.action);
      }
      return setDiff(out, action, replaceMatches(c));
    }
    default:
      return diffJSON({ ...c, replace: new Set() });
  }
}

function diffAttribute(c: Change, a: Attribute): Diff {
  if (a.type) return diffType(c, a.type);
  const no = a.nestedType!;
  const su = sensitiveOrUnknown(c, (x) => diffAttribute(x, a));
  if (su) return su;
  const objBlock: Block = { attributes: no.attributes, blockTypes: {} };
  const obj = (cc: Change): Diff => {
    const su2 = sensitiveOrUnknown(cc, obj);
    if (su2) return su2;
    let action = defaultIterAction(cc);
    const attrs = new Map<string, Diff>();
    for (const [k, at] of Object.entries(objBlock.attributes)) {
      const x = child(cc, k, cc.before?.entries.get(k), cc.after?.entries.get(k));
      const d = diffAttribute(x, at);
      if (d.action === 'NoOp' && x.before === undefined && x.after === undefined) continue;
      attrs.set(k, d);
      action = compareActions(action, d.action);
    }
    return objectDiff(attrs, action, replaceMatches(cc));
  };
  switch (no.nesting) {
    case 'single':
      return obj(c);
    case 'map': {
      let action = defaultIterAction(c);
      const be = c.before?.entries;
      const ae = c.after?.entries;
      const elems = new Map<string, Diff>();
      for (const k of new Set([...(be?.keys() ?? []), ...(ae?.keys() ?? [])])) {
        const d = obj(child(c, k, be?.get(k), ae?.get(k)));
        elems.set(k, d);
        action = compareActions(action, d.action);
      }
      return mapDiff(elems, action, replaceMatches(c));
    }
    default: {
      const bs = [...(c.before?.elems ?? [])];
      const as = [...(c.after?.elems ?? [])];
      let action = defaultIterAction(c);
      const out: Diff[] = [];
      for (let i = 0; i < Math.max(bs.length, as.length); i++) {
        const d = obj(child(c, String(i), bs[i], as[i]));
        out.push(d);
        action = compareActions(action, d.action);
      }
      return no.nesting === 'set' ? setDiff(out, action, replaceMatches(c)) : listDiff(out, action, replaceMatches(c), false);
    }
  }
}

interface BlockEntry {
  key: string;
  mapKey: string;
  diff: Diff;
}

function blockDiffOf(c: Change, b: Block): Diff {
  if (!c.nonLegacy && containsNonLegacyFeatures(b)) c = { ...c, nonLegacy: true };
  const su = sensitiveOrUnknown(c, (x) => blockDiffOf(x, b));
  if (su) return su;
  let action = defaultIterAction(c);
  const attrs = new Map<string, Diff>();
  const be = c.before?.entries;
  const ae = c.after?.entries;
  for (const [k, a] of Object.entries(b.attributes)) {
    let bv = norm(be?.get(k));
    let av = norm(ae?.get(k));
    if (bv && bv.isKnown && bv.type.kind === 'string' && !bv.isSensitive && bv.str === '') bv = undefined;
    if (av && av.isKnown && av.type.kind === 'string' && !av.isSensitive && av.str === '') av = undefined;
    const cc = child(c, k, bv, av);
    const d = diffAttribute(cc, a);
    if (d.action === 'NoOp' && cc.before === undefined && cc.after === undefined) continue;
    attrs.set(k, d);
    action = compareActions(action, d.action);
  }
  const blocks: BlockEntry[] = [];
  for (const k of sortedKeys(Object.keys(b.blockTypes))) {
    const nb: NestedBlock = b.blockTypes[k];
    const bvv = norm(be?.get(k));
    const avv = norm(ae?.get(k));
    const push = (d: Diff, mapKey = '') => {
      blocks.push({ key: k, mapKey, diff: d });
      action = compareActions(action, d.action);
    };
    if (nb.nesting === 'single' || nb.nesting === 'group') {
      const cc = child(c, k, bvv, avv);
      if (cc.before === undefined && cc.after === undefined) continue;
      push(blockDiffOf(cc, nb.block));
    } else if (avv && !avv.isKnown && !bvv) {
      // A collection of blocks not known until apply: one "(known after apply)" line for the block type.
      push(unknownDiff(calculateAction(child(c, k, bvv, avv)), replaceMatches(child(c, k, bvv, avv))));
    } else if (nb.nesting === 'map') {
      const bm = bvv?.isKnown ? bvv.entries : undefined;
      const am = avv?.isKnown ? avv.entries : undefined;
      for (const mk2 of sortedKeys(new Set([...(bm?.keys() ?? []), ...(am?.keys() ?? [])]))) push(blockDiffOf(child(c, k, bm?.get(mk2), am?.get(mk2)), nb.block), ` ${goQuote(mk2)}`);
    } else {
      const bs = bvv?.isKnown ? [...bvv.elems] : [];
      const as = avv?.isKnown ? [...avv.elems] : [];
      if (nb.nesting === 'set') {
        const ak = as.map(canon);
        const bk = bs.map(canon);
        for (let i = 0; i < bs.length; i++) {
          const j = ak.indexOf(bk[i]);
          push(blockDiffOf(child(c, k, bs[i], j >= 0 ? as[j] : undefined), nb.block));
        }
        for (let j = 0; j < as.length; j++) if (!bk.includes(ak[j])) push(blockDiffOf(child(c, k, undefined, as[j]), nb.block));
      } else {
        for (let i = 0; i < Math.max(bs.length, as.length); i++) push(blockDiffOf(child(c, k, bs[i], as[i]), nb.block));
      }
    }
  }
  const replace = replaceMatches(c);
  return mk('block', action, replace, (indent, o) => {
    if (attrs.size === 0 && blocks.length === 0) return `{}${forces(replace, o)}`;
    const keys = sortedKeys(attrs.keys());
    const width = keys.length ? Math.max(...keys.map((k) => ensureValidAttributeName(k).length)) : 0;
    let out = `{${forces(replace, o)}\n`;
    let hidden = 0;
    for (const k of keys) {
      const d = attrs.get(k)!;
      if (IMPORTANT.has(k)) {
        const io: RenderOpts = { ...o, showUnchangedChildren: true };
        out += `${indentOf(indent + 1)}${sym(d.action, io)}${pad(ensureValidAttributeName(k), width)} = ${d.render(indent + 1, io)}\n`;
        continue;
      }
      if (d.action === 'NoOp' && !o.showUnchangedChildren) {
        hidden++;
        continue;
      }
      out += `${indentOf(indent + 1)}${sym(d.action, o)}${pad(ensureValidAttributeName(k), width)} = ${d.render(indent + 1, o)}\n`;
    }
    if (hidden) out += `${indentOf(indent + 1)}${sym('NoOp', o)}${unchanged(hidden, 'attribute', o)}\n`;
    let hiddenBlocks = 0;
    let lastKey = '';
    let found = false;
    for (const e of blocks) {
      if (e.key !== lastKey) {
        found = false;
        lastKey = e.key;
      }
      if (e.diff.action === 'NoOp' && !o.showUnchangedChildren) {
        hiddenBlocks++;
        continue;
      }
      if (!found && attrs.size > 0) {
        out += '\n';
        found = true;
      }
      out += `${indentOf(indent + 1)}${sym(e.diff.action, o)}${ensureValidAttributeName(e.key)}${e.mapKey} ${e.diff.render(indent + 1, o)}\n`;
    }
    if (hiddenBlocks) out += `${indentOf(indent + 1)}${sym('NoOp', o)}${unchanged(hiddenBlocks, 'block', o)}\n`;
    return out + `${indentOf(indent)}${sym('NoOp', o)}}`;
  });
}

function replaceSet(paths: readonly Path[]): Set<string> {
  const s = new Set<string>();
  for (const p of paths) {
    const steps = p.map((st) => (st.kind === 'attr' ? st.name : st.key.type.kind === 'number' ? st.key.num.toString() : st.key.str));
    s.add(pathKey(steps));
  }
  return s;
}

/** The diff of a resource instance object (ComputeDiffForBlock). */
export function diffBlock(before: Value, after: Value, block: Block, replacePaths: readonly Path[] = []): Diff {
  return blockDiffOf({ before: norm(before), after: norm(after), bExp: false, aExp: false, path: [], replace: replaceSet(replacePaths) }, block);
}

/** The diff of an output value (ComputeDiffForOutput). */
export function diffOutput(before: Value, after: Value, sensitive: boolean): Diff {
  const c: Change = { before: norm(before), after: norm(after), bExp: false, aExp: false, path: [], replace: new Set() };
  if (sensitive) {
    const action = c.after && !c.after.isKnown ? (c.before === undefined ? 'Create' : 'Update') : calculateAction(c);
    return sensitiveDiff(action, false);
  }
  return diffJSON(c);
}
