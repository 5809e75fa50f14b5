// The state file codec: Terraform's `terraform.tfstate` JSON (format version 4) <-> State (state.ts).
//
// Siblings: state.ts (the model), statemgr.ts (interfaces). This module is pure: text in, text out. It is
// byte-compatible with Terraform 1.11.4's statefile.Write: Go encoding/json MarshalIndent with two spaces, one
// trailing newline, struct fields in Terraform's order, map keys (outputs) sorted, resources sorted by
// (module, mode, type, name) and instances by key (none, ints ascending, strings ascending) then deposed key;
// raw embedded JSON (attributes, output values and types, sensitive paths) is compacted and re-indented the way
// Go does, including Go's HTML-safe escaping of <, >, & and U+2028/U+2029 inside strings. Numbers are never
// converted: their source text is copied, so values beyond 2^53 survive.
//
// Reading accepts format 4 and upgrades format 3 (Terraform 0.11) in memory; unknown keys are ignored; problems
// are returned as diagnostics with Terraform's texts, never thrown.

import { error, type Diagnostic } from '../diags/diagnostic';
import {
  applyChange,
  instanceKeyString,
  resourceKey,
  State,
  type AttrPath,
  type CheckResult,
  type CheckStatus,
  type InstanceKey,
  type ObjectSrc,
  type PathStep,
  type ResourceMode,
} from './state';

/** The Terraform version Foresight writes into state files (it mimics this version's behaviour). */
export const TERRAFORM_VERSION = '1.11.4';

/** A state with the file-level metadata that travels with it (Terraform's statefile.File). */
export interface StateFile {
  terraformVersion: string;
  serial: number;
  lineage: string;
  state: State;
}

// ---- raw JSON tree --------------------------------------------------------------------------------------------

/** A parsed JSON value that remembers its source span, so sub-documents can be kept as raw text. */
type JNode =
  | { kind: 'object'; entries: [string, JNode][]; start: number; end: number }
  | { kind: 'array'; items: JNode[]; start: number; end: number }
  | { kind: 'string'; value: string; start: number; end: number }
  | { kind: 'number'; text: string; start: number; end: number }
  | { kind: 'bool'; value: boolean; start: number; end: number }
  | { kind: 'null'; start: number; end: number };

class JSONSyntaxError extends Error {
  /** Go's json.SyntaxError.Offset: the UTF-8 bytes read when the error was found (the bad byte included). */
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * Parses JSON text into a JNode tree. Object or array values of the keys in `rawKeys` are validated but get no
 * children (the codec keeps them as raw text); this keeps big states cheap to read.
 */
function parseJSON(src: string, rawKeys?: ReadonlySet<string>, at?: number): JNode {
  let i = at ?? 0;
  // A document the native parser accepts is valid JSON (the same grammar as Go's encoding/json), so raw values
  // can be skipped by bracket matching instead of being validated character by character; an invalid document
  // takes the validating path, which finds Go's error offset. (`at`: one value inside a document already known
  // to be valid.)
  let trusted = at !== undefined;
  if (rawKeys && !trusted) {
    try {
      JSON.parse(src);
      trusted = true;
    } catch {
      trusted = false;
    }
  }
  const skipRaw = () => {
    i = skipComposite(src, i);
  };
  const ws = () => {
    for (;;) {
      const c = src.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) i++;
      else return;
    }
  };
  const fail = (what: string): never => {
    throw new JSONSyntaxError(`${what} at offset ${i}`, i >= src.length ? Buffer.byteLength(src) : Buffer.byteLength(src.slice(0, i)) + 1);
  };
  // With build = false the value is only validated (nothing is allocated) and a placeholder is returned.
  const value = (build = true): JNode => {
    ws();
    const start = i;
    const c = src[i];
    if (c === '{') {
      i++;
      const entries: [string, JNode][] = [];
      ws();
      if (src[i] === '}') {
        i++;
        return { kind: 'object', entries, start, end: i };
      }
      for (;;) {
        ws();
        if (src[i] !== '"') fail('expected string key');
        const k = value(build) as { value: string };
        ws();
        if (src[i] !== ':') fail("expected ':'");
        i++;
        ws();
        if (build && rawKeys?.has(k.value) && (src[i] === '{' || src[i] === '[')) {
          const s0 = i;
          if (trusted) skipRaw();
          else value(false);
          entries.push([k.value, src[s0] === '{' ? { kind: 'object', entries: [], start: s0, end: i } : { kind: 'array', items: [], start: s0, end: i }]);
        } else {
          const v = value(build);
          if (build) entries.push([k.value, v]);
        }
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === '}') {
          i++;
          return { kind: 'object', entries, start, end: i };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items: JNode[] = [];
      ws();
      if (src[i] === ']') {
        i++;
        return { kind: 'array', items, start, end: i };
      }
      for (;;) {
        const v = value(build);
        if (build) items.push(v);
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === ']') {
          i++;
          return { kind: 'array', items, start, end: i };
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') {
      i++;
      let escaped = false;
      for (;;) {
        const code = src.charCodeAt(i);
        if (Number.isNaN(code)) fail('unterminated string');
        if (code === 0x22) break;
        if (code === 0x5c) {
          escaped = true;
          i += 2;
          continue;
        }
        if (code < 0x20) fail('control character in string');
        i++;
      }
      i++;
      let v: string;
      if (!build) v = '';
      else if (!escaped) v = src.slice(start + 1, i - 1);
      else {
        try {
          v = JSON.parse(src.slice(start, i)) as string;
        } catch {
          return fail('invalid string');
        }
      }
      return { kind: 'string', value: v, start, end: i };
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const isDigit = (k: number) => k >= 0x30 && k <= 0x39;
      if (src[i] === '-') i++;
      if (src[i] === '0') i++;
      else if (isDigit(src.charCodeAt(i))) while (isDigit(src.charCodeAt(i))) i++;
      else fail('invalid number');
      if (src[i] === '.') {
        i++;
        if (!isDigit(src.charCodeAt(i))) fail('invalid number');
        while (isDigit(src.charCodeAt(i))) i++;
      }
      if (src[i] === 'e' || src[i] === 'E') {
        i++;
        if (src[i] === '+' || src[i] === '-') i++;
        if (!isDigit(src.charCodeAt(i))) fail('invalid number');
        while (isDigit(src.charCodeAt(i))) i++;
      }
      return { kind: 'number', text: build ? src.slice(start, i) : '', start, end: i };
    }
    if (src.startsWith('true', i)) return (i += 4), { kind: 'bool', value: true, start, end: i };
    if (src.startsWith('false', i)) return (i += 5), { kind: 'bool', value: false, start, end: i };
    if (src.startsWith('null', i)) return (i += 4), { kind: 'null', start, end: i };
    return fail(i >= src.length ? 'unexpected end of JSON input' : `invalid character ${JSON.stringify(c)}`);
  };
  const v = value();
  if (at !== undefined) return v;
  ws();
  if (i < src.length) fail('invalid character after top-level value');
  return v;
}

/** The end of the object or array starting at `i` in valid JSON text (strings may hold brackets and quotes). */
function skipComposite(src: string, i: number): number {
  let depth = 0;
  for (;;) {
    const c = src.charCodeAt(i++);
    if (c === 0x22) {
      for (;;) {
        const d = src.charCodeAt(i++);
        if (d === 0x22) break;
        if (d === 0x5c) i++;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i;
    }
  }
}

/** Every key format 4 defines outside attribute values and outputs (top level, resource, instance, path step, check result). */
const V4_KEYS: ReadonlySet<string> = new Set([
  'version',
  'terraform_version',
  'serial',
  'lineage',
  'outputs',
  'resources',
  'check_results',
  'module',
  'mode',
  'type',
  'name',
  'each',
  'provider',
  'instances',
  'index_key',
  'status',
  'deposed',
  'schema_version',
  'attributes',
  'sensitive_attributes',
  'private',
  'dependencies',
  'create_before_destroy',
  'value',
  'object_kind',
  'config_addr',
  'objects',
  'object_addr',
  'failure_messages',
]);

/**
 * The keys whose values the fast read takes from the source text, as object keys (in valid JSON a quote not after
 * a backslash opens a string, and a string followed by a colon is a key).
 */
const SOURCE_KEYS = /(?<!\\)"(attributes|outputs|serial|version)"[ \t\n\r]*:[ \t\n\r]*/g;
const LITERAL = /[-+.0-9A-Za-z]+/y;

/**
 * The common case of reading, without a character loop over the whole text: a valid format 4 document that uses
 * only format 4's keys. The native parser (validation included) gives the structure; the source text is scanned
 * only for the keys whose values stay text: each `"attributes"` value is skipped by bracket matching (so keys
 * inside it are never seen) and `"outputs"` is read by parseJSON at its position. Returns undefined, for the
 * general parser to read the text, when the document is anything else: invalid, another version, an unknown or
 * case-folded key, legacy flat attributes, a sensitive path with an index step (its key is kept as text), or when
 * the keys found in the text do not pair one to one, in order, with the parsed structure's (a duplicate key).
 * The JNode tree it returns is the general parser's except that positions are only real where text is read.
 */
function parseTrustedV4(src: string): JNode | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(src);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || (doc as { version?: unknown }).version !== 4) return undefined;
  const spans: { key: string; start: number; end: number }[] = [];
  SOURCE_KEYS.lastIndex = 0;
  for (let m = SOURCE_KEYS.exec(src); m; m = SOURCE_KEYS.exec(src)) {
    const start = SOURCE_KEYS.lastIndex;
    const c = src.charCodeAt(start);
    let end: number;
    if (c === 0x7b || c === 0x5b) end = skipComposite(src, start);
    else if (c === 0x22) {
      end = start + 1;
      for (let d = src.charCodeAt(end++); d !== 0x22; d = src.charCodeAt(end++)) if (d === 0x5c) end++;
    } else {
      LITERAL.lastIndex = start;
      if (!LITERAL.test(src)) return undefined;
      end = LITERAL.lastIndex;
    }
    spans.push({ key: m[1], start, end });
    SOURCE_KEYS.lastIndex = end;
  }
  let next = 0;
  let ok = true;
  const conv = (v: unknown): JNode => {
    if (v === null) return { kind: 'null', start: -1, end: -1 };
    switch (typeof v) {
      case 'string':
        return { kind: 'string', value: v, start: -1, end: -1 };
      case 'number':
        return { kind: 'number', text: String(v), start: -1, end: -1 };
      case 'boolean':
        return { kind: 'bool', value: v, start: -1, end: -1 };
    }
    if (Array.isArray(v)) {
      const items: JNode[] = new Array(v.length);
      for (let j = 0; j < v.length; j++) items[j] = conv(v[j]);
      return { kind: 'array', items, start: -1, end: -1 };
    }
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    const entries: [string, JNode][] = new Array(keys.length);
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j];
      const x = o[k];
      // (A path step's index key is kept as text: such paths are left to the general parser.)
      if (!V4_KEYS.has(k) || ((k === 'value' || k === 'type') && typeof x === 'object' && x !== null) || (k === 'type' && x === 'index')) {
        ok = false;
        entries[j] = [k, { kind: 'null', start: -1, end: -1 }];
      } else if (k === 'attributes' || k === 'outputs' || k === 'serial' || k === 'version') {
        const sp = spans[next++];
        let e: JNode;
        if (!sp || sp.key !== k) {
          ok = false;
          e = { kind: 'null', start: -1, end: -1 };
        } else if (k === 'outputs' || typeof x !== 'object') e = parseJSON(src, RAW_KEYS, sp.start);
        else if (x === null) e = { kind: 'null', start: sp.start, end: sp.end };
        else if (k === 'attributes') e = Array.isArray(x) ? { kind: 'array', items: [], start: sp.start, end: sp.end } : { kind: 'object', entries: [], start: sp.start, end: sp.end };
        else e = parseJSON(src, undefined, sp.start);
        entries[j] = [k, e];
      } else entries[j] = [k, conv(x)];
    }
    return { kind: 'object', entries, start: -1, end: -1 };
  };
  const root = conv(doc);
  return ok && next === spans.length ? root : undefined;
}

function field(o: JNode | undefined, name: string): JNode | undefined {
  if (!o || o.kind !== 'object') return undefined;
  // encoding/json matches keys case-insensitively, preferring an exact match; the last duplicate wins.
  let found: JNode | undefined;
  const es = o.entries;
  for (let j = 0; j < es.length; j++) if (es[j][0] === name) found = es[j][1];
  if (found) return found;
  // The names asked for are ASCII: a key whose lower case equals one has the same length (toLowerCase only
  // changes the length of non-ASCII letters, and none of those fold to ASCII without keeping their length).
  const lower = name.toLowerCase();
  for (let j = 0; j < es.length; j++) {
    const k = es[j][0];
    if (k.length === name.length && k.toLowerCase() === lower) found = es[j][1];
  }
  return found;
}

// ---- Go encoding/json output ----------------------------------------------------------------------------------

/** Quotes a string as Go's encoding/json does (HTML-safe escaping, \b \f as in Go 1.22+, invalid UTF-16 -> U+FFFD). */
export function goQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += '\ufffd';
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += '\\u' + c.toString(16).padStart(4, '0');
        continue;
    }
    out += c < 0x20 ? '\\u' + c.toString(16).padStart(4, '0') : s[i];
  }
  return out + '"';
}

/**
 * Go's json.Compact with HTML escaping, as encoding/json applies it to a json.RawMessage: insignificant
 * whitespace removed, string escapes kept as written except that <, >, &, U+2028 and U+2029 are escaped.
 * Precondition: `raw` is valid JSON.
 */
export function goCompact(raw: string): string {
  // Whitespace between tokens goes; strings are kept, with Go's HTML-safe escapes where they are needed. A
  // regular expression finds both (a character loop appending to a string cost seconds on big states).
  return raw.replace(COMPACT_TOKENS, (m) => (m.charCodeAt(0) !== 0x22 ? '' : GO_UNSAFE.test(m) ? m.replace(GO_UNSAFE_ALL, goEscape) : m));
}

/** A JSON string, or a run of whitespace (which in valid JSON lies between tokens). */
const COMPACT_TOKENS = /"(?:[^"\\]|\\.)*"|[ \t\n\r]+/g;
const GO_UNSAFE = /[<>&\u2028\u2029]/;
const GO_UNSAFE_ALL = /[<>&\u2028\u2029]/g;
const goEscape = (c: string) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');

/** Go's json.Indent(prefix "", indent "  ") over compact JSON: empty arrays/objects stay `[]` / `{}`. */
function goIndent(compact: string): string {
  // The native serialiser indents exactly as json.Indent does, and it may when it reproduces the compact text
  // byte for byte from the parsed value: then no number was rewritten, no key reordered or dropped as a
  // duplicate, and no string escaped differently (Go's \u003c and the like parse to characters the native
  // serialiser would write plainly, so such texts fail the test and take the tokenizer below).
  try {
    const v: unknown = JSON.parse(compact);
    if (JSON.stringify(v) === compact) return JSON.stringify(v, null, 2);
  } catch {
    // not JSON: indented by the tokenizer as it stands
  }
  const out: string[] = [];
  let depth = 0;
  let last = 0;
  INDENT_TOKENS.lastIndex = 0;
  for (let m = INDENT_TOKENS.exec(compact); m; m = INDENT_TOKENS.exec(compact)) {
    const c = m[0];
    const at = m.index;
    if (c.charCodeAt(0) === 0x22) continue; // a string: copied with the text around it
    out.push(compact.slice(last, at));
    last = at + 1;
    switch (c) {
      case '{':
      case '[': {
        const close = compact.charCodeAt(at + 1);
        if (close === 0x7d || close === 0x5d) {
          // empty: `{}` / `[]`
          out.push(c, compact[at + 1]);
          last = at + 2;
          INDENT_TOKENS.lastIndex = at + 2;
        } else {
          depth++;
          out.push(c, indentOf(depth));
        }
        break;
      }
      case ',':
        out.push(',', indentOf(depth));
        break;
      case ':':
        out.push(': ');
        break;
      default:
        depth--;
        out.push(indentOf(depth), c);
    }
  }
  out.push(compact.slice(last));
  return out.join('');
}

/** Strings (skipped whole) and the structural characters json.Indent acts on. */
const INDENT_TOKENS = /"(?:[^"\\]|\\.)*"|[{}[\],:]/g;
const INDENTS: string[] = [];
function indentOf(depth: number): string {
  return (INDENTS[depth] ??= '\n' + '  '.repeat(depth));
}

// ---- reading --------------------------------------------------------------------------------------------------

/** Keys whose object/array values format 4 keeps as raw text (instance attributes, output value/type, path keys). */
const RAW_KEYS: ReadonlySet<string> = new Set(['attributes', 'value', 'type']);

export interface ReadResult {
  /** undefined for an empty input (no state) or when errors prevented reading. */
  file?: StateFile;
  diags: Diagnostic[];
}

/**
 * Reads a state file of any supported format. Empty (or whitespace-only) input means "no state" and gives no
 * file and no diagnostics, as Terraform's statefile.Read treats it (ErrNoState). A valid format 4 document is read
 * by parseTrustedV4's fast lane when it can; `generalParser` skips the lane (tests compare the two).
 */
export function readStateFile(src: string, opts: { generalParser?: boolean } = {}): ReadResult {
  if (src.trim() === '') return { diags: [] };
  const trusted = opts.generalParser ? undefined : parseTrustedV4(src);
  if (trusted) {
    const r = readParsed(src, trusted);
    // Diagnostics may quote source text the fast tree has no position for: the general parser's tree has it.
    if (r.diags.length === 0) return r;
  }
  let root: JNode;
  try {
    root = parseJSON(src, RAW_KEYS);
    const v = field(root, 'version');
    // Format 3 needs the children of "attributes" and output values: parse it again in full.
    if (v?.kind === 'number' && Number(v.text) === 3) root = parseJSON(src);
  } catch (e) {
    // sniffJSONStateVersion: a syntax error, and then no version either.
    const offset = e instanceof JSONSyntaxError ? e.offset : 0;
    return {
      diags: [error(UNSUPPORTED_FORMAT, `The state file could not be parsed as JSON: syntax error at byte offset ${offset}.`), error(UNSUPPORTED_FORMAT, NO_VERSION)],
    };
  }
  return readParsed(src, root);
}

function readParsed(src: string, root: JNode): ReadResult {
  // sniffJSONStateVersion: json.Unmarshal into {Version *uint64}.
  const diags: Diagnostic[] = [];
  const v = root.kind === 'object' ? field(root, 'version') : undefined;
  // A value of the wrong type still allocates the pointer (no "no version" error); a non-object document does not.
  const typeError = root.kind !== 'object' && root.kind !== 'null' ? goJSONTypeName(root, src, false) : v && v.kind !== 'null' && !isUint64(v) ? goJSONTypeName(v, src, true) : undefined;
  if (typeError !== undefined) diags.push(error(UNSUPPORTED_FORMAT, `The version in the state file is ${typeError}. A positive whole number is required.`));
  if (!v || v.kind === 'null' || root.kind !== 'object') diags.push(error(UNSUPPORTED_FORMAT, NO_VERSION));
  if (diags.length > 0 || !v || v.kind !== 'number') return { diags };
  const version = Number(v.text);
  const tErr = version >= 1 && version <= 4 ? topLevelTypeError(root, src) : undefined;
  if (tErr) return { diags: [error('Invalid state file format', `The state file field ${goQuote(tErr[0])} has invalid value ${tErr[1]}`)] };
  switch (version) {
    case 4:
      return readV4(src, root);
    case 3:
      return readV3(root);
    case 0:
      return {
        diags: [
          error(
            UNSUPPORTED_FORMAT,
            'The state file uses JSON syntax but has a version number of zero. There was never a JSON-based state format zero, so this state file is invalid and cannot be processed.',
          ),
        ],
      };
    case 1:
    case 2:
      return { diags: [error('Unsupported state file format', `Foresight reads state format versions 3 and 4; this state file uses format version ${version}. Upgrade it by running any Terraform version between 0.12 and 1.x against it first.`)] };
    default: {
      const tv = field(root, 'terraform_version');
      const creating = tv?.kind === 'string' ? semverString(tv.value) : undefined;
      return {
        diags: [
          error(
            UNSUPPORTED_FORMAT,
            `The state file uses format version ${v.text}, which is not supported by Terraform ${TERRAFORM_VERSION}. ` +
              (creating ? `This state file was created by Terraform ${creating}.` : 'This state file may have been created by a newer version of Terraform.'),
          ),
        ],
      };
    }
  }
}

const UNSUPPORTED_FORMAT = 'Unsupported state file format';
const NO_VERSION = 'The state file does not have a "version" attribute, which is required to identify the format version.';

const isUint64 = (n: JNode): boolean => n.kind === 'number' && /^(0|[1-9]\d*)$/.test(n.text) && BigInt(n.text) < 2n ** 64n;

/** json.UnmarshalTypeError.Value for a JSON value: its kind; a number aimed at an unsigned field has its text. */
function goJSONTypeName(n: JNode, src: string, uintTarget: boolean): string {
  switch (n.kind) {
    case 'object':
      return 'object';
    case 'array':
      return 'array';
    case 'string':
      return 'string';
    case 'bool':
      return 'bool';
    case 'number':
      return uintTarget ? `number ${src.slice(n.start, n.end)}` : 'number';
    default:
      return 'null';
  }
}

/**
 * The first json.UnmarshalTypeError of the top-level fields of Terraform's state structs (serial uint64, lineage
 * and terraform_version strings), as jsonUnmarshalDiags reports it: [field, value].
 */
function topLevelTypeError(root: JNode, src: string): [string, string] | undefined {
  if (root.kind !== 'object') return undefined;
  for (const [k, n] of root.entries) {
    if (n.kind === 'null') continue;
    if (k === 'serial' && !isUint64(n)) return [k, goJSONTypeName(n, src, true)];
    if ((k === 'lineage' || k === 'terraform_version') && n.kind !== 'string') return [k, goJSONTypeName(n, src, false)];
  }
  return undefined;
}

/** version.NewVersion(s).String() of go-version (the original text), or undefined when `s` is not a version. */
function semverString(s: string): string | undefined {
  return /^v?\d+(?:\.\d+)*(?:-[0-9A-Za-z\-.]+)?(?:\+[0-9A-Za-z\-.]+)?$/.test(s) ? s : undefined;
}

const raw = (src: string, n: JNode) => src.slice(n.start, n.end);
const str = (n: JNode | undefined) => (n && n.kind === 'string' ? n.value : '');

function readPaths(src: string, n: JNode | undefined, diags: Diagnostic[]): AttrPath[] {
  if (!n || n.kind !== 'array') return [];
  const out: AttrPath[] = [];
  outer: for (const p of n.items) {
    if (p.kind !== 'array') continue;
    const steps: PathStep[] = [];
    for (const s of p.items) {
      const t = str(field(s, 'type'));
      const val = field(s, 'value');
      if (t === 'get_attr' && val?.kind === 'string') steps.push({ type: 'get_attr', name: val.value });
      else if (t === 'index' && val) steps.push({ type: 'index', key: goCompact(raw(src, val)) });
      else {
        diags.push(error('Unsupported path step', `Unsupported path step type ${JSON.stringify(t)}`));
        continue outer;
      }
    }
    out.push(steps);
  }
  return out;
}

function parseStatus(s: string): CheckStatus {
  return s === 'pass' || s === 'fail' || s === 'error' ? s : 'unknown';
}

function readV4(src: string, root: JNode): ReadResult {
  const diags: Diagnostic[] = [];
  const state = new State();
  const serialNode = field(root, 'serial');
  const file: StateFile = {
    terraformVersion: str(field(root, 'terraform_version')),
    serial: serialNode?.kind === 'number' ? Number(serialNode.text) : 0,
    lineage: str(field(root, 'lineage')),
    state,
  };
  if (file.terraformVersion !== '' && !/^v?\d+(\.\d+)*(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(file.terraformVersion)) {
    diags.push(
      error(
        'Invalid Terraform version string',
        `State file claims to have been written by Terraform version ${JSON.stringify(file.terraformVersion)}, which is not a valid version string.`,
      ),
    );
  }
  const resources = field(root, 'resources');
  const providers = new Map<string, string | undefined>();
  for (const rs of resources?.kind === 'array' ? resources.items : []) {
    const mode = str(field(rs, 'mode'));
    const type = str(field(rs, 'type'));
    const name = str(field(rs, 'name'));
    if (mode !== 'managed' && mode !== 'data') {
      diags.push(error('Invalid resource mode in state', `State contains a resource with mode ${JSON.stringify(mode)} (${JSON.stringify(type)} ${JSON.stringify(name)}) which is not supported.`));
      continue;
    }
    const module = str(field(rs, 'module'));
    const providerRaw = str(field(rs, 'provider'));
    let provider = providers.get(providerRaw);
    if (provider === undefined && !providers.has(providerRaw)) providers.set(providerRaw, (provider = normalizeProviderConfig(providerRaw)));
    // Terraform drops a resource whose provider address does not parse, without a diagnostic.
    if (provider === undefined) continue;
    const raddr = { module, mode: mode as ResourceMode, type, name };
    applyChange(state, { op: 'provider', addr: raddr, provider });
    const display = (key: InstanceKey) =>
      (module ? module + '.' : '') + resourceKey(raddr) + (key === undefined ? '' : `[${instanceKeyString(key)}]`);
    const instances = field(rs, 'instances');
    for (const is of instances?.kind === 'array' ? instances.items : []) {
      const kn = field(is, 'index_key');
      let key: InstanceKey;
      if (kn?.kind === 'number') key = Math.trunc(Number(kn.text));
      else if (kn?.kind === 'string') key = kn.value;
      else if (kn && kn.kind !== 'null') {
        diags.push(error('Invalid resource instance metadata in state', `Resource ${display(undefined)} has an instance with the invalid instance key ${raw(src, kn)}.`));
        continue;
      }
      const statusRaw = str(field(is, 'status'));
      if (statusRaw !== '' && statusRaw !== 'tainted') {
        diags.push(error('Invalid resource instance metadata in state', `Instance ${display(key)} has invalid status ${JSON.stringify(statusRaw)}.`));
        continue;
      }
      const attrs = field(is, 'attributes');
      const flat = field(is, 'attributes_flat');
      let attrsJSON: string | undefined;
      let attrsFlat: Record<string, string> | undefined;
      if (attrs && attrs.kind !== 'null') attrsJSON = raw(src, attrs);
      else if (flat && flat.kind === 'object') {
        attrsFlat = {};
        for (const [k, v] of flat.entries) attrsFlat[k] = str(v);
      } else attrsJSON = '{}';
      const pathDiags: Diagnostic[] = [];
      const sensitivePaths = readPaths(src, field(is, 'sensitive_attributes'), pathDiags);
      if (pathDiags.length) {
        diags.push(...pathDiags);
        continue;
      }
      const sv = field(is, 'schema_version');
      const priv = str(field(is, 'private'));
      const deps = field(is, 'dependencies');
      const obj: ObjectSrc = {
        schemaVersion: sv?.kind === 'number' ? Number(sv.text) : 0,
        ...(attrsJSON !== undefined ? { attrsJSON } : {}),
        ...(attrsFlat ? { attrsFlat } : {}),
        sensitivePaths,
        ...(priv ? { private: priv } : {}),
        status: statusRaw === 'tainted' ? 'tainted' : 'ready',
        dependencies: deps?.kind === 'array' ? deps.items.map(str) : [],
        createBeforeDestroy: field(is, 'create_before_destroy')?.kind === 'bool' && (field(is, 'create_before_destroy') as { value: boolean }).value,
      };
      const addr = { module: raddr.module, mode: raddr.mode, type: raddr.type, name: raddr.name, key };
      const deposed = str(field(is, 'deposed'));
      if (deposed !== '') {
        if (deposed.length !== 8) {
          diags.push(error('Invalid resource instance metadata in state', `Instance ${display(key)} has an object with deposed key ${JSON.stringify(deposed)}, which is not correctly formatted.`));
          continue;
        }
        if (state.instance(addr)?.deposed.has(deposed)) {
          diags.push(error('Duplicate resource instance in state', `Instance ${display(key)} deposed object ${JSON.stringify(deposed)} appears multiple times in the state file.`));
          continue;
        }
        applyChange(state, { op: 'deposed', addr, deposedKey: deposed, provider, obj });
      } else {
        if (state.instance(addr)?.current) {
          diags.push(error('Duplicate resource instance in state', `Instance ${display(key)} appears multiple times in the state file.`));
          continue;
        }
        applyChange(state, { op: 'current', addr, provider, obj });
      }
    }
  }
  const outputs = field(root, 'outputs');
  for (const [name, o] of outputs?.kind === 'object' ? outputs.entries : []) {
    const value = field(o, 'value');
    const type = field(o, 'type');
    if (!type) {
      diags.push(error('Invalid output value type in state', `The state file has an invalid type specification for output ${JSON.stringify(name)}: missing type.`));
      continue;
    }
    const sens = field(o, 'sensitive');
    state.outputs.set(name, {
      valueJSON: value ? raw(src, value) : 'null',
      typeJSON: raw(src, type),
      sensitive: sens?.kind === 'bool' && sens.value,
    });
  }
  const checks = field(root, 'check_results');
  if (checks?.kind === 'array') {
    const results: CheckResult[] = [];
    for (const c of checks.items) {
      const objs = field(c, 'objects');
      results.push({
        objectKind: str(field(c, 'object_kind')),
        configAddr: str(field(c, 'config_addr')),
        status: parseStatus(str(field(c, 'status'))),
        objects:
          objs?.kind === 'array'
            ? objs.items.map((ob) => {
                const fm = field(ob, 'failure_messages');
                return {
                  objectAddr: str(field(ob, 'object_addr')),
                  status: parseStatus(str(field(ob, 'status'))),
                  ...(fm?.kind === 'array' && fm.items.length ? { failureMessages: fm.items.map(str) } : {}),
                };
              })
            : null,
      });
    }
    state.checkResults = results;
  }
  return { file, diags };
}

const IDENT = '[A-Za-z_][A-Za-z0-9_-]*';
const MODERN_PROVIDER = new RegExp(`^((?:module\\.${IDENT}\\.)*)provider\\["([^"]+)"\\](?:\\.(${IDENT}))?$`);
const LEGACY_PROVIDER = new RegExp(`^((?:module\\.${IDENT}\\.)*)provider\\.(${IDENT})(?:\\.(${IDENT}))?$`);

/**
 * A provider configuration address as Terraform re-writes it after parsing: `provider["NS/TYPE"]` gains the
 * default registry host, legacy `provider.aws` becomes `provider["registry.terraform.io/-/aws"]`. Returns
 * undefined for addresses Terraform cannot parse (module instance keys, bad source strings).
 */
export function normalizeProviderConfig(s: string): string | undefined {
  let m = MODERN_PROVIDER.exec(s);
  if (m) {
    const parts = m[2].split('/');
    if (parts.length < 2 || parts.length > 3 || parts.some((x) => x === '')) return undefined;
    const fqn = parts.length === 2 ? `registry.terraform.io/${m[2]}` : m[2];
    return `${m[1]}provider[${JSON.stringify(fqn.toLowerCase())}]${m[3] ? '.' + m[3] : ''}`;
  }
  m = LEGACY_PROVIDER.exec(s);
  if (m) return `${m[1]}provider["registry.terraform.io/-/${m[2]}"]${m[3] ? '.' + m[3] : ''}`;
  return undefined;
}

// ---- format 3 upgrade -----------------------------------------------------------------------------------------

/** `provider.aws`, `provider.aws.west`, `module.a.provider.aws` -> v4 provider config address (legacy namespace). */
function upgradeProviderV3(s: string, type: string, module: string): string {
  let rest = s;
  let mod = module;
  const mi = rest.lastIndexOf('provider.');
  if (mi > 0) {
    mod = rest.slice(0, mi - 1);
    rest = rest.slice(mi);
  }
  let name = type.split('_')[0];
  let alias = '';
  if (rest.startsWith('provider.')) {
    const parts = rest.slice('provider.'.length).split('.');
    name = parts[0];
    alias = parts[1] ?? '';
  }
  const fqn = name === 'terraform' ? 'terraform.io/builtin/terraform' : `registry.terraform.io/-/${name}`;
  return `${mod ? mod + '.' : ''}provider[${JSON.stringify(fqn)}]${alias ? '.' + alias : ''}`;
}

function readV3(root: JNode): ReadResult {
  const diags: Diagnostic[] = [];
  const state = new State();
  const serialNode = field(root, 'serial');
  const file: StateFile = {
    terraformVersion: str(field(root, 'terraform_version')),
    serial: serialNode?.kind === 'number' ? Number(serialNode.text) : 0,
    lineage: str(field(root, 'lineage')),
    state,
  };
  const modules = field(root, 'modules');
  for (const m of modules?.kind === 'array' ? modules.items : []) {
    const path = field(m, 'path');
    const segs = path?.kind === 'array' ? path.items.map(str) : ['root'];
    const module = segs.slice(1).map((s) => `module.${s}`).join('.');
    const resources = field(m, 'resources');
    for (const [k, r] of resources?.kind === 'object' ? resources.entries : []) {
      // Keys: [data.]TYPE.NAME[.INDEX]
      let parts = k.split('.');
      let mode: ResourceMode = 'managed';
      if (parts[0] === 'data') {
        mode = 'data';
        parts = parts.slice(1);
      }
      if (parts.length < 2 || parts.length > 3) {
        diags.push(error('Invalid resource instance metadata in state', `Invalid legacy resource address ${JSON.stringify(k)}.`));
        continue;
      }
      const type = parts[0];
      const name = parts[1];
      const key: InstanceKey = parts.length === 3 ? Number(parts[2]) : undefined;
      const provider = upgradeProviderV3(str(field(r, 'provider')), type, module);
      const depsNode = field(r, 'depends_on');
      const dependencies = (depsNode?.kind === 'array' ? depsNode.items.map(str) : [])
        .map((d) => d.replace(/\.\d+$/, '').replace(/\.\*$/, ''))
        .filter((d) => !d.startsWith('module.') && !d.startsWith('var.'))
        .map((d) => (module ? `${module}.${d}` : d));
      const toObj = (inst: JNode | undefined): ObjectSrc | undefined => {
        if (!inst || inst.kind !== 'object') return undefined;
        const attrs = field(inst, 'attributes');
        const flat: Record<string, string> = {};
        for (const [ak, av] of attrs?.kind === 'object' ? attrs.entries : []) flat[ak] = str(av);
        const id = str(field(inst, 'id'));
        if (id && flat.id === undefined) flat.id = id;
        const meta = field(inst, 'meta');
        const sv = field(meta, 'schema_version');
        const tainted = field(inst, 'tainted');
        return {
          schemaVersion: sv?.kind === 'string' ? Number(sv.value) || 0 : sv?.kind === 'number' ? Number(sv.text) : 0,
          attrsFlat: flat,
          sensitivePaths: [],
          status: tainted?.kind === 'bool' && tainted.value ? 'tainted' : 'ready',
          dependencies,
          createBeforeDestroy: false,
        };
      };
      const addr = { module, mode, type, name, key };
      const primary = toObj(field(r, 'primary'));
      if (primary) applyChange(state, { op: 'current', addr, provider, obj: primary });
      const deposed = field(r, 'deposed');
      let n = 0;
      for (const d of deposed?.kind === 'array' ? deposed.items : []) {
        const obj = toObj(d);
        if (!obj) continue;
        applyChange(state, { op: 'deposed', addr, deposedKey: (n++).toString(16).padStart(8, '0'), provider, obj });
      }
    }
    if (segs.length === 1) {
      const outputs = field(m, 'outputs');
      for (const [name, o] of outputs?.kind === 'object' ? outputs.entries : []) {
        const t = str(field(o, 'type'));
        const v = field(o, 'value');
        if (!v) continue;
        const typeJSON = t === 'list' ? '["list","string"]' : t === 'map' ? '["map","string"]' : '"string"';
        const sens = field(o, 'sensitive');
        state.outputs.set(name, { valueJSON: JSON.stringify(jsonValue(v)), typeJSON, sensitive: sens?.kind === 'bool' && sens.value });
      }
    }
  }
  return { file, diags };
}

function jsonValue(n: JNode): unknown {
  switch (n.kind) {
    case 'object':
      return Object.fromEntries(n.entries.map(([k, v]) => [k, jsonValue(v)]));
    case 'array':
      return n.items.map(jsonValue);
    case 'string':
      return n.value;
    case 'number':
      return n.text;
    case 'bool':
      return n.value;
    case 'null':
      return null;
  }
}

// ---- writing --------------------------------------------------------------------------------------------------

function compareStrings(a: string, b: string): number {
  // Go compares strings bytewise; comparing by code point is the same order.
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i].codePointAt(0)!;
    const y = cb[i].codePointAt(0)!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return ca.length - cb.length;
}

/** Terraform's instance order: no key, then int keys ascending, then string keys ascending. */
function compareKeys(a: InstanceKey, b: InstanceKey): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  if (typeof b === 'number') return 1;
  return compareStrings(a, b);
}

function objectJSON(key: InstanceKey, deposed: string, o: ObjectSrc): string {
  const parts: string[] = [];
  if (key !== undefined) parts.push(`"index_key":${typeof key === 'number' ? String(key) : goQuote(key)}`);
  if (o.status === 'tainted') parts.push('"status":"tainted"');
  if (deposed) parts.push(`"deposed":${goQuote(deposed)}`);
  parts.push(`"schema_version":${o.schemaVersion}`);
  if (o.attrsJSON !== undefined) parts.push(`"attributes":${goCompact(o.attrsJSON)}`);
  if (o.attrsFlat && Object.keys(o.attrsFlat).length > 0) {
    const keys = Object.keys(o.attrsFlat).sort(compareStrings);
    parts.push(`"attributes_flat":{${keys.map((k) => `${goQuote(k)}:${goQuote(o.attrsFlat![k])}`).join(',')}}`);
  }
  const paths = o.sensitivePaths.map(
    (p) => '[' + p.map((s) => (s.type === 'get_attr' ? `{"type":"get_attr","value":${goQuote(s.name)}}` : `{"type":"index","value":${goCompact(s.key)}}`)).join(',') + ']',
  );
  parts.push(`"sensitive_attributes":[${paths.join(',')}]`);
  if (o.private) parts.push(`"private":${goQuote(o.private)}`);
  if (o.dependencies.length > 0) parts.push(`"dependencies":[${o.dependencies.map(goQuote).join(',')}]`);
  if (o.createBeforeDestroy) parts.push('"create_before_destroy":true');
  return `{${parts.join(',')}}`;
}

/** Serialises a state file exactly as Terraform 1.11.4 does (see the header for the rules). */
export function writeStateFile(f: StateFile): string {
  const s = f.state;
  const outNames = [...s.outputs.keys()].sort(compareStrings);
  const outputs = outNames.map((n) => {
    const o = s.outputs.get(n)!;
    return `${goQuote(n)}:{"value":${goCompact(o.valueJSON)},"type":${goCompact(o.typeJSON)}${o.sensitive ? ',"sensitive":true' : ''}}`;
  });
  const rs = [...s.allResources()].sort(
    ([ma, a], [mb, b]) => compareStrings(ma.addr, mb.addr) || compareStrings(a.mode, b.mode) || compareStrings(a.type, b.type) || compareStrings(a.name, b.name),
  );
  const resources = rs.map(([m, r]) => {
    const objs: [InstanceKey, string, ObjectSrc][] = [];
    for (const is of r.instances.values()) {
      if (is.current) objs.push([is.key, '', is.current]);
      for (const [dk, o] of is.deposed) objs.push([is.key, dk, o]);
    }
    objs.sort((a, b) => compareKeys(a[0], b[0]) || compareStrings(a[1], b[1]));
    const head = `${m.addr ? `"module":${goQuote(m.addr)},` : ''}"mode":${goQuote(r.mode)},"type":${goQuote(r.type)},"name":${goQuote(r.name)},"provider":${goQuote(r.provider)}`;
    return `{${head},"instances":[${objs.map(([k, d, o]) => objectJSON(k, d, o)).join(',')}]}`;
  });
  let checks = 'null';
  if (s.checkResults && s.checkResults.length > 0) {
    checks =
      '[' +
      s.checkResults
        .map((c) => {
          const objs =
            c.objects && c.objects.length > 0
              ? '[' +
                c.objects
                  .map(
                    (o) =>
                      `{"object_addr":${goQuote(o.objectAddr)},"status":${goQuote(o.status)}${o.failureMessages && o.failureMessages.length ? `,"failure_messages":[${o.failureMessages.map(goQuote).join(',')}]` : ''}}`,
                  )
                  .join(',') +
                ']'
              : 'null';
          return `{"object_kind":${goQuote(c.objectKind)},"config_addr":${goQuote(c.configAddr)},"status":${goQuote(c.status)},"objects":${objs}}`;
        })
        .join(',') +
      ']';
  }
  const compact =
    `{"version":4,"terraform_version":${goQuote(f.terraformVersion)},"serial":${f.serial},"lineage":${goQuote(f.lineage)},` +
    `"outputs":{${outputs.join(',')}},"resources":[${resources.join(',')}],"check_results":${checks}}`;
  return goIndent(compact) + '\n';
}

/**
 * True when two states would serialise identically apart from serial, lineage and version (Terraform's
 * statefile.StatesMarshalEqual): the local backend bumps the serial only when this is false.
 */
export function statesMarshalEqual(a: State, b: State): boolean {
  return canonicalState(a) === canonicalState(b);
}

const CANON_HEAD = '{\n  "version": 4,\n  "terraform_version": "",\n  "serial": 0,\n  "lineage": "",\n';

/** The state serialised with empty metadata: equal strings <=> statesMarshalEqual. Feed it to withMeta. */
export function canonicalState(state: State): string {
  return writeStateFile({ terraformVersion: '', serial: 0, lineage: '', state });
}

/** The state file text for a canonicalState text and metadata; equals writeStateFile of the same file. */
export function withMeta(canonical: string, f: { terraformVersion: string; serial: number; lineage: string }): string {
  if (!canonical.startsWith(CANON_HEAD)) throw new Error('withMeta: not a canonical state text');
  return (
    `{\n  "version": 4,\n  "terraform_version": ${goQuote(f.terraformVersion)},\n  "serial": ${f.serial},\n  "lineage": ${goQuote(f.lineage)},\n` +
    canonical.slice(CANON_HEAD.length)
  );
}

/** A new random lineage: 16 random bytes as 8-4-4-4-12 hex (hashicorp/go-uuid sets no version bits). */
export function newLineage(randomBytes: (n: number) => Uint8Array): string {
  const b = randomBytes(16);
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
