// Built-in encoding functions of Terraform 1.11: base64encode/base64decode/base64gzip, textencodebase64/
// textdecodebase64 (IANA encodings via iconv-lite), urlencode (Go's url.QueryEscape), csvdecode (Go's
// encoding/csv rules), jsonencode/jsondecode (Go's encoding/json output and error texts, exact numbers) and
// yamlencode/yamldecode (go-cty-yaml, a go-yaml fork: keys and strings double-quoted, multi-line strings as
// literal blocks, "..." after a top-level plain scalar, double-quoted lines folded past column 80).
// Messages carry no trailing period: the call wrapper appends one (see crypto.ts).

import { deflateRawSync, constants as zc } from 'node:zlib';
import iconv from 'iconv-lite';
import { parseAllDocuments, isAlias, isMap, isScalar, isSeq, type Node as YNode, type Document as YDoc } from 'yaml';
import { Num } from '../number';
import * as T from '../types';
import type { Type } from '../types';
import { Value, type Mark } from '../value';
import { goQuote } from './crypto';
import { FuncArgError, FuncError, type FuncSpec } from './function';

// ---- base64 -----------------------------------------------------------------------------------------

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Go's base64.StdEncoding.DecodeString: bytes, or the CorruptInputError offset. */
export function goBase64Decode(s: string): { bytes?: Buffer; errOffset?: number } {
  const src = Buffer.from(s, 'utf8');
  const out: number[] = [];
  let si = 0;
  const isNL = (b: number) => b === 10 || b === 13;
  while (si < src.length) {
    const quad: number[] = [];
    let j = 0;
    let padded = false;
    for (; j < 4; ) {
      if (si === src.length) {
        if (j === 0) return { bytes: Buffer.from(out) };
        return { errOffset: si - j };
      }
      const c = src[si++];
      if (isNL(c)) continue;
      if (c === 0x3d /* = */) {
        // Padding: valid only at j == 2 (followed by '=') or j == 3.
        if (j < 2) return { errOffset: si - 1 };
        if (j === 2) {
          while (si < src.length && isNL(src[si])) si++;
          if (si === src.length) return { errOffset: src.length };
          if (src[si] !== 0x3d) return { errOffset: si - 1 };
          si++;
        }
        while (si < src.length && isNL(src[si])) si++;
        if (si < src.length) return { errOffset: si };
        padded = true;
        break;
      }
      const v = B64.indexOf(String.fromCharCode(c));
      if (v < 0) return { errOffset: si - 1 };
      quad.push(v);
      j++;
    }
    const n = quad.length;
    const val = (quad[0] << 18) | ((quad[1] ?? 0) << 12) | ((quad[2] ?? 0) << 6) | (quad[3] ?? 0);
    out.push((val >> 16) & 255);
    if (n >= 3) out.push((val >> 8) & 255);
    if (n >= 4) out.push(val & 255);
    if (padded) break;
  }
  return { bytes: Buffer.from(out) };
}

function isValidUTF8(b: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

function redact(s: string, marks: ReadonlySet<Mark>): string {
  return marks.has('sensitive') ? '(sensitive value)' : goQuote(s);
}

let crcTable: Uint32Array | undefined;
function crc32(b: Buffer): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const x of b) c = crcTable[(c ^ x) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * gzip as Go's gzip.Writer after Write+Flush+Close: a 10-byte header (mtime 0, OS 255), the deflate data
 * ending in a sync flush, an empty final stored block, CRC-32 and size. zlib's deflate blocks match Go's
 * for short inputs; longer inputs may compress differently (still valid gzip).
 */
function goGzip(data: Buffer): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const body = deflateRawSync(data, { finishFlush: zc.Z_SYNC_FLUSH });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data), 0);
  trailer.writeUInt32LE(data.length >>> 0, 4);
  return Buffer.concat([header, body, Buffer.from([1, 0, 0, 0xff, 0xff]), trailer]);
}

// ---- IANA encodings -----------------------------------------------------------------------------------

/** IANA names/aliases (lower case) → [iconv-lite codec, IANA name as x/text's ianaindex reports it]. */
const IANA: Record<string, [string, string]> = {};
function addEnc(codec: string, name: string, ...aliases: string[]) {
  for (const a of [name, ...aliases]) IANA[a.toLowerCase()] = [codec, name];
}
addEnc('utf8', 'UTF-8', 'csUTF8');
addEnc('utf16le', 'UTF-16LE', 'csUTF16LE');
addEnc('utf16be', 'UTF-16BE', 'csUTF16BE');
addEnc('utf16-bom-be', 'UTF-16', 'csUTF16');
addEnc('latin1', 'ISO_8859-1:1987', 'ISO-8859-1', 'iso-ir-100', 'ISO_8859-1', 'latin1', 'l1', 'IBM819', 'CP819', 'csISOLatin1');
addEnc('iso88592', 'ISO_8859-2:1987', 'ISO-8859-2', 'iso-ir-101', 'ISO_8859-2', 'latin2', 'l2', 'csISOLatin2');
addEnc('iso88593', 'ISO_8859-3:1988', 'ISO-8859-3', 'iso-ir-109', 'ISO_8859-3', 'latin3', 'l3', 'csISOLatin3');
addEnc('iso88594', 'ISO_8859-4:1988', 'ISO-8859-4', 'iso-ir-110', 'ISO_8859-4', 'latin4', 'l4', 'csISOLatin4');
addEnc('iso88595', 'ISO_8859-5:1988', 'ISO-8859-5', 'iso-ir-144', 'ISO_8859-5', 'cyrillic', 'csISOLatinCyrillic');
addEnc('iso88596', 'ISO_8859-6:1987', 'ISO-8859-6', 'iso-ir-127', 'ISO_8859-6', 'ECMA-114', 'ASMO-708', 'arabic', 'csISOLatinArabic');
addEnc('iso88597', 'ISO_8859-7:1987', 'ISO-8859-7', 'iso-ir-126', 'ISO_8859-7', 'ELOT_928', 'ECMA-118', 'greek', 'greek8', 'csISOLatinGreek');
addEnc('iso88598', 'ISO_8859-8:1988', 'ISO-8859-8', 'iso-ir-138', 'ISO_8859-8', 'hebrew', 'csISOLatinHebrew');
addEnc('iso88599', 'ISO_8859-9:1989', 'ISO-8859-9', 'iso-ir-148', 'ISO_8859-9', 'latin5', 'l5', 'csISOLatin5');
addEnc('iso885910', 'ISO-8859-10', 'iso-ir-157', 'l6', 'ISO_8859-10:1992', 'csISOLatin6', 'latin6');
addEnc('iso885913', 'ISO-8859-13', 'csISO885913');
addEnc('iso885914', 'ISO-8859-14', 'iso-ir-199', 'ISO_8859-14:1998', 'ISO_8859-14', 'latin8', 'iso-celtic', 'l8', 'csISO885914');
addEnc('iso885915', 'ISO-8859-15', 'ISO_8859-15', 'Latin-9', 'csISO885915');
addEnc('iso885916', 'ISO-8859-16', 'iso-ir-226', 'ISO_8859-16:2001', 'ISO_8859-16', 'latin10', 'l10', 'csISO885916');
addEnc('koi8-r', 'KOI8-R', 'csKOI8R');
addEnc('koi8-u', 'KOI8-U', 'csKOI8U');
addEnc('shiftjis', 'Shift_JIS', 'MS_Kanji', 'csShiftJIS');
addEnc('eucjp', 'Extended_UNIX_Code_Packed_Format_for_Japanese', 'csEUCPkdFmtJapanese', 'EUC-JP');
addEnc('euckr', 'EUC-KR', 'csEUCKR');
addEnc('gbk', 'GBK', 'CP936', 'MS936', 'windows-936', 'csGBK');
addEnc('gb18030', 'GB18030', 'csGB18030');
addEnc('big5', 'Big5', 'csBig5');
addEnc('macintosh', 'macintosh', 'mac', 'csMacintosh');
addEnc('cp437', 'IBM437', 'cp437', '437', 'csPC8CodePage437');
addEnc('cp850', 'IBM850', 'cp850', '850', 'csPC850Multilingual');
addEnc('cp866', 'IBM866', 'cp866', '866', 'csIBM866');
for (const n of [874, 1250, 1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258]) addEnc(`win${n}`, `windows-${n}`, `cswindows${n}`);

function lookupEncoding(name: string): [string, string] {
  const e = IANA[name.toLowerCase()];
  if (!e) throw new FuncArgError(1, `${goQuote(name)} is not a supported IANA encoding name or alias in this Terraform version`);
  return e;
}
function encodeText(s: string, codec: string): Buffer {
  if (codec === 'utf8') return Buffer.from(s, 'utf8');
  if (codec === 'utf16-bom-be') return Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(s, 'utf16be')]);
  return iconv.encode(s, codec);
}
function decodeText(b: Buffer, codec: string): string {
  if (codec === 'utf8') return new TextDecoder('utf-8').decode(b);
  if (codec === 'utf16-bom-be') {
    if (b[0] === 0xff && b[1] === 0xfe) return iconv.decode(b.subarray(2), 'utf16le');
    if (b[0] === 0xfe && b[1] === 0xff) return iconv.decode(b.subarray(2), 'utf16be');
    return iconv.decode(b, 'utf16be');
  }
  return iconv.decode(b, codec, { stripBOM: false });
}

// ---- urlencode ----------------------------------------------------------------------------------------

export function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

// ---- csvdecode ----------------------------------------------------------------------------------------

class CSVError extends Error {
  constructor(
    readonly line: number,
    msg: string,
  ) {
    super(msg);
  }
}

/** Go's encoding/csv Reader with default options; records with their start line. Throws CSVError. */
function readCSV(text: string): { fields: string[]; line: number }[] {
  const recs: { fields: string[]; line: number }[] = [];
  const s = text;
  let i = 0;
  let line = 1;
  let nfields = -1;
  while (i < s.length) {
    // Skip empty lines.
    if (s[i] === '\n' || (s[i] === '\r' && s[i + 1] === '\n')) {
      i += s[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (s[i] === '"') {
        i++;
        for (;;) {
          if (i >= s.length) throw new CSVError(startLine, 'extraneous or missing " in quoted-field');
          const c = s[i];
          if (c === '"') {
            if (s[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\r' && s[i + 1] === '\n') {
            field += '\n';
            i += 2;
            line++;
            continue;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < s.length && s[i] !== ',' && s[i] !== '\n' && !(s[i] === '\r' && s[i + 1] === '\n'))
          throw new CSVError(line, 'extraneous or missing " in quoted-field');
      } else {
        while (i < s.length && s[i] !== ',' && s[i] !== '\n' && !(s[i] === '\r' && s[i + 1] === '\n')) {
          if (s[i] === '"') throw new CSVError(line, 'bare " in non-quoted-field');
          field += s[i++];
        }
      }
      fields.push(field);
      if (i < s.length && s[i] === ',') {
        i++;
        continue;
      }
      if (i < s.length) {
        i += s[i] === '\r' ? 2 : 1;
        line++;
      }
      break;
    }
    if (nfields < 0) nfields = fields.length;
    else if (fields.length !== nfields) throw new CSVError(startLine, 'wrong number of fields');
    recs.push({ fields, line: startLine });
  }
  return recs;
}

function csvParse(text: string): { header: string[]; rows: string[][] } {
  let recs;
  try {
    recs = readCSV(text);
  } catch (e) {
    if (e instanceof CSVError) throw new FuncError(`CSV parse error on line ${e.line}: ${e.message}`);
    throw e;
  }
  if (recs.length === 0) throw new FuncError('missing header line');
  const header = recs[0].fields;
  const seen = new Set<string>();
  for (const h of header) {
    if (seen.has(h)) throw new FuncError(`duplicate column name ${goQuote(h)}`);
    seen.add(h);
  }
  return { header, rows: recs.slice(1).map((r) => r.fields) };
}

// ---- JSON ---------------------------------------------------------------------------------------------

function jsonQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029)
      out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** cty's JSON serialization of a known, unmarked value. */
export function jsonSerialize(v: Value): string {
  if (v.isNull) return 'null';
  switch (v.type.kind) {
    case 'string':
      return jsonQuote(v.str);
    case 'number':
      if (v.num.isInf()) throw new FuncError('cannot serialize infinity as JSON');
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'list':
    case 'set':
    case 'tuple':
      return '[' + v.elems.map(jsonSerialize).join(',') + ']';
    case 'map':
    case 'object': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      return '{' + keys.map((k) => jsonQuote(k) + ':' + jsonSerialize(v.entries.get(k)!)).join(',') + '}';
    }
    default:
      throw new FuncError(`cannot serialize ${T.friendlyName(v.type)} as JSON`);
  }
}

class JSONErr extends Error {}

/** A JSON parser giving Go's encoding/json Decoder error texts, as cty's jsondecode reports them. */
function jsonDecode(src: string): Value {
  let i = 0;
  const n = src.length;
  const ws = () => {
    while (i < n && (src[i] === ' ' || src[i] === '\t' || src[i] === '\n' || src[i] === '\r')) i++;
  };
  const charDesc = (c: string) => (c === "'" ? "'\\''" : c === '"' ? "'\"'" : `'${c}'`);
  const value = (ctx: string): Value => {
    ws();
    if (i >= n) throw new JSONErr('EOF');
    const c = src[i];
    if (c === '{') {
      i++;
      const m = new Map<string, Value>();
      ws();
      if (i >= n) throw new JSONErr('EOF');
      if (src[i] === '}') {
        i++;
        return sortedObject(m);
      }
      for (;;) {
        ws();
        if (i >= n) throw new JSONErr('EOF');
        if (src[i] !== '"') throw new JSONErr(`invalid character ${charDesc(src[i])} looking for beginning of object key string`);
        const k = str();
        ws();
        if (i >= n) throw new JSONErr('EOF');
        if (src[i] !== ':') throw new JSONErr(`invalid character ${charDesc(src[i])} after object key`);
        i++;
        const v = value('value');
        m.delete(k);
        m.set(k, v);
        ws();
        if (i >= n) throw new JSONErr('EOF');
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === '}') {
          i++;
          return sortedObject(m);
        }
        throw new JSONErr(`invalid character ${charDesc(src[i])} after object key:value pair`);
      }
    }
    if (c === '[') {
      i++;
      const elems: Value[] = [];
      ws();
      if (i >= n) throw new JSONErr('EOF');
      if (src[i] === ']') {
        i++;
        return Value.tuple(elems);
      }
      for (;;) {
        elems.push(value('value'));
        ws();
        if (i >= n) throw new JSONErr('EOF');
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === ']') {
          i++;
          return Value.tuple(elems);
        }
        throw new JSONErr(`invalid character ${charDesc(src[i])} after array element`);
      }
    }
    if (c === '"') return Value.string(str());
    for (const [lit, v] of [
      ['true', Value.bool(true)],
      ['false', Value.bool(false)],
      ['null', Value.null(T.Dynamic)],
    ] as const) {
      if (c === lit[0]) {
        for (let k = 0; k < lit.length; k++, i++) {
          if (i >= n) throw new JSONErr('unexpected EOF');
          if (src[i] !== lit[k]) throw new JSONErr(`invalid character ${charDesc(src[i])} in literal ${lit} (expecting '${lit[k]}')`);
        }
        return v;
      }
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(src.slice(i));
      if (!m) {
        if (i + 1 >= n) throw new JSONErr('unexpected EOF');
        throw new JSONErr(`invalid character ${charDesc(src[i + 1])} in numeric literal`);
      }
      const after = src[i + m[0].length];
      if (after === '.' || after === 'e' || after === 'E' || (after === undefined && /[.eE+-]$/.test(m[0]))) {
        const rest = src.slice(i + m[0].length);
        if (/^[.eE][+-]?$/.test(rest)) throw new JSONErr('unexpected EOF');
        throw new JSONErr(`invalid character ${charDesc(rest[1] ?? rest[0])} after decimal point in numeric literal`);
      }
      i += m[0].length;
      return Value.number(Num.parse(m[0])!);
    }
    if (ctx === 'value') throw new JSONErr(`invalid character ${charDesc(c)} looking for beginning of value`);
    throw new JSONErr(`invalid character ${charDesc(c)} looking for beginning of value`);
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    for (;;) {
      if (i >= n) throw new JSONErr('unexpected EOF');
      const c = src[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        i++;
        if (i >= n) throw new JSONErr('unexpected EOF');
        const e = src[i++];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e in simple) out += simple[e];
        else if (e === 'u') {
          const h = src.slice(i, i + 4);
          if (h.length < 4) throw new JSONErr('unexpected EOF');
          const bad = /[^0-9a-fA-F]/.exec(h);
          if (bad) throw new JSONErr(`invalid character ${charDesc(bad[0])} in \\u hexadecimal character escape`);
          i += 4;
          const cu = parseInt(h, 16);
          if (cu >= 0xd800 && cu < 0xdc00 && src[i] === '\\' && src[i + 1] === 'u') {
            const lo = parseInt(src.slice(i + 2, i + 6), 16);
            if (lo >= 0xdc00 && lo < 0xe000) {
              out += String.fromCharCode(cu, lo);
              i += 6;
              continue;
            }
          }
          out += cu >= 0xd800 && cu < 0xe000 ? '\ufffd' : String.fromCharCode(cu);
        } else throw new JSONErr(`invalid character ${charDesc(e)} in string escape code`);
        continue;
      }
      if (c < ' ') throw new JSONErr(`invalid character ${charDesc(c)} in string literal`);
      out += c;
      i++;
    }
  };
  const v = value('value');
  ws();
  if (i < n) throw new JSONErr('extraneous data after JSON object');
  return v;
}

function jsonDecodeOrThrow(s: string): Value {
  try {
    return jsonDecode(s);
  } catch (e) {
    if (e instanceof JSONErr) throw new FuncError(e.message);
    throw e;
  }
}

// ---- YAML ---------------------------------------------------------------------------------------------

/** go-yaml's is_printable, on a code point. */
function yamlPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

function yamlDoubleQuoted(s: string, indent: number, startColumn: number): string {
  let out = '"';
  let column = startColumn + 1;
  let spaces = false;
  const chars = [...s];
  for (let k = 0; k < chars.length; k++) {
    const ch = chars[k];
    const c = ch.codePointAt(0)!;
    const isBreak = c === 10 || c === 13 || c === 0x85 || c === 0x2028 || c === 0x2029;
    if (!yamlPrintable(c) || c === 0xfeff || isBreak || ch === '"' || ch === '\\') {
      const esc: Record<number, string> = {
        0: '0', 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 27: 'e', 0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
      };
      let e: string;
      if (esc[c] !== undefined) e = '\\' + esc[c];
      else if (c <= 0xff) e = '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
      else if (c <= 0xffff) e = '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
      else e = '\\U' + c.toString(16).toUpperCase().padStart(8, '0');
      out += e;
      column += e.length;
      spaces = false;
    } else if (ch === ' ') {
      if (!spaces && column > 80 && k !== 0 && k !== chars.length - 1) {
        out += '\n' + ' '.repeat(indent);
        column = indent;
        if (chars[k + 1] === ' ') {
          out += '\\';
          column++;
        }
      } else {
        out += ch;
        column++;
      }
      spaces = true;
    } else {
      out += ch;
      column++;
      spaces = false;
    }
  }
  return out + '"';
}

/** A string as go-yaml writes it: literal block when cty-yaml asks for one and the emitter allows it. */
function yamlString(s: string, indent: number, startColumn: number): string {
  if (s.includes('\n')) {
    const cps = [...s].map((c) => c.codePointAt(0)!);
    const special = cps.some((c) => !yamlPrintable(c) || c === 0xfeff || c === 0x85 || c === 0x2028 || c === 0x2029);
    const spaceBreak = /[ ]\n/.test(s);
    const trailingSpace = s.endsWith(' ');
    if (!special && !spaceBreak && !trailingSpace) {
      let hdr = '|';
      if (s[0] === ' ' || s[0] === '\n') hdr += '2';
      if (!s.endsWith('\n')) hdr += '-';
      else if (s.length === 1 || s.endsWith('\n\n')) hdr += '+';
      const body = s.endsWith('\n') ? s.slice(0, -1) : s;
      const lines = body.split('\n').map((l) => (l === '' ? '' : ' '.repeat(indent) + l));
      return hdr + '\n' + lines.join('\n');
    }
  }
  return yamlDoubleQuoted(s, indent, startColumn);
}

function yamlScalar(v: Value, indent: number, startColumn: number): string | undefined {
  if (v.isNull) return 'null';
  switch (v.type.kind) {
    case 'string':
      return yamlString(v.str, indent, startColumn);
    case 'number':
      return v.num.isInf() ? (v.num.sign() > 0 ? '+.Inf' : '-.Inf') : v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    default:
      return undefined;
  }
}

function isCollection(v: Value): 'seq' | 'map' | undefined {
  if (v.isNull) return undefined;
  const k = v.type.kind;
  if (k === 'list' || k === 'set' || k === 'tuple') return 'seq';
  if (k === 'map' || k === 'object') return 'map';
  return undefined;
}

/**
 * Emits `v` as a block node. `indent` is the indentation of the node's own lines; `col` the column where
 * the first line starts (after "- " or "key: "). Returns text without a trailing newline.
 */
function yamlNode(v: Value, indent: number, col: number): string {
  const kind = isCollection(v);
  if (kind === 'seq') {
    if (v.elems.length === 0) return '[]';
    return v.elems
      .map((e, idx) => {
        const prefix = idx === 0 ? '' : ' '.repeat(indent);
        return prefix + '- ' + yamlNode(e, indent + 2, indent + 2);
      })
      .join('\n');
  }
  if (kind === 'map') {
    const keys = [...v.entries.keys()].sort(T.compareBytes);
    if (keys.length === 0) return '{}';
    return keys
      .map((k, idx) => {
        const prefix = idx === 0 ? '' : ' '.repeat(indent);
        const e = v.entries.get(k)!;
        let keyText: string;
        let complex = false;
        if (k.includes('\n')) {
          complex = true;
          keyText = '? ' + yamlString(k, indent + 2, indent + 2);
        } else keyText = yamlDoubleQuoted(k, indent, indent);
        const ek = isCollection(e);
        const sep = complex ? '\n' + ' '.repeat(indent) + ':' : ':';
        if (ek === 'seq' && e.elems.length > 0) return prefix + keyText + sep + '\n' + ' '.repeat(indent) + yamlNode(e, indent, indent);
        if (ek === 'map' && e.entries.size > 0)
          return prefix + keyText + sep + '\n' + ' '.repeat(indent + 2) + yamlNode(e, indent + 2, indent + 2);
        const lastLine = (prefix + keyText + sep).split('\n').pop()!;
        return prefix + keyText + sep + ' ' + yamlNode(e, indent + 2, lastLine.length + 1);
      })
      .join('\n');
  }
  return yamlScalar(v, indent, col)!;
}

export function yamlEncode(v: Value): string {
  // A root block scalar is indented by two; root double-quoted lines fold to column 0.
  const text = v.type.kind === 'string' && !v.isNull ? yamlString(v.str, 2, 0) : yamlNode(v, 0, 0);
  const kind = isCollection(v);
  // go-yaml ends the document with "..." after a plain scalar at the root.
  const plain = !kind && !(v.type.kind === 'string' && !v.isNull);
  return text + '\n' + (plain ? '...\n' : '');
}

/** Converts a parsed YAML node (the `yaml` package, YAML 1.1 schema) to a value as go-cty-yaml does. */
function yamlToValue(node: YNode | null | undefined, doc: YDoc): Value {
  if (node == null) return Value.null(T.Dynamic);
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (target === undefined) throw new FuncError(`reference to undefined anchor ${goQuote(node.source)}`);
    return yamlToValue(target as YNode, doc);
  }
  if (isMap(node)) {
    const m = new Map<string, Value>();
    for (const pair of node.items) {
      const kv = yamlToValue(pair.key as YNode, doc);
      let key: string;
      if (kv.isNull) key = 'null';
      else if (kv.type.kind === 'string') key = kv.str;
      else if (kv.type.kind === 'number') key = kv.num.toString();
      else if (kv.type.kind === 'bool') key = kv.bool ? 'true' : 'false';
      else throw new FuncError('only string keys are supported');
      m.delete(key);
      m.set(key, yamlToValue(pair.value as YNode, doc));
    }
    return sortedObject(m);
  }
  if (isSeq(node)) return Value.tuple(node.items.map((x) => yamlToValue(x as YNode, doc)));
  if (isScalar(node)) {
    const v = node.value;
    const src = node.source;
    if (v === null || v === undefined) return Value.null(T.Dynamic);
    if (typeof v === 'boolean') return Value.bool(v);
    if (typeof v === 'number' || typeof v === 'bigint') {
      if (typeof v === 'number' && !Number.isFinite(v)) {
        if (Number.isNaN(v)) throw new FuncError('cannot represent NaN as a number');
        return Value.number(v > 0 ? Num.POS_INF : Num.NEG_INF);
      }
      const plain = typeof src === 'string' ? src.replace(/_/g, '') : '';
      const parsed = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(plain) ? Num.parse(plain.replace(/^\+/, '').replace(/\.$/, '').replace(/\.([eE])/, '$1')) : undefined;
      return Value.number(parsed ?? (typeof v === 'bigint' ? v : Num.from(v)));
    }
    if (v instanceof Date) return Value.string(v.toISOString().replace(/\.000Z$/, 'Z'));
    if (v instanceof Uint8Array) return Value.string(Buffer.from(v).toString('latin1'));
    return Value.string(String(v));
  }
  throw new FuncError('unsupported YAML node');
}

/** Offset of the innermost flow collection ('[' or '{') still open at `end` (quotes skipped roughly). */
function openFlowOffset(src: string, end: number): number {
  const stack: number[] = [];
  let quote = '';
  for (let k = 0; k < Math.min(end, src.length); k++) {
    const c = src[k];
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') stack.push(k);
    else if ((c === ']' || c === '}') && stack.length) stack.pop();
  }
  return stack.length ? stack[stack.length - 1] : 0;
}

function yamlDecode(src: string): Value {
  if (src.trim() === '' || /^(\s*#[^\n]*\n?)*\s*$/.test(src)) throw new FuncError('on line 1, column 1: missing start of document');
  const docs = parseAllDocuments(src, { version: '1.1', customTags: ['timestamp', 'binary'], uniqueKeys: false, merge: true });
  if (!Array.isArray(docs)) throw new FuncError('on line 1, column 1: missing start of document');
  for (const d of docs) {
    if (d.errors.length > 0) {
      const e = d.errors[0];
      const pos = e.linePos?.[0];
      let msg = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      if (e.code === 'BAD_ALIAS' || /unresolved alias/i.test(msg)) {
        const m = /alias \*?(\S+)/.exec(msg);
        throw new FuncError(`reference to undefined anchor ${goQuote(m ? m[1] : '')}`);
      }
      if (/^Flow (sequence|map)/.test(msg)) {
        // libyaml reports an unterminated flow collection at the line where it opened, column 1.
        const seq = msg.startsWith('Flow sequence');
        const line = src.slice(0, openFlowOffset(src, e.pos[0])).split('\n').length;
        throw new FuncError(`on line ${line}, column 1: did not find expected ',' or '${seq ? ']' : '}'}'`);
      }
      if (e.code === 'MISSING_CHAR' && /quote/.test(msg)) throw new FuncError('found unexpected end of stream');
      throw new FuncError(pos ? `on line ${pos.line}, column ${pos.col}: ${msg}` : msg);
    }
  }
  if (docs.length > 1) {
    // cty-yaml reports the position where the first document's value starts.
    const start = (docs[0].contents as YNode | null)?.range?.[0] ?? 0;
    const line = src.slice(0, start).split('\n').length;
    throw new FuncError(`on line ${line}, column 1: unexpected extra content after value`);
  }
  if (docs.length === 0) throw new FuncError('on line 1, column 1: missing start of document');
  const doc = docs[0];
  return yamlToValue(doc.contents as YNode, doc);
}

/** An object value whose entries are in cty's attribute order (bytewise by name). */
function sortedObject(m: Map<string, Value>): Value {
  return Value.object(new Map([...m].sort((a, b) => T.compareBytes(a[0], b[0]))));
}

// ---- shared -------------------------------------------------------------------------------------------

/** Deeply unmarks `v`; returns the value and all marks found (jsonencode/yamlencode mark the whole result). */
function unmarkAll(v: Value): [Value, ReadonlySet<Mark>] {
  return v.unmarkDeep();
}

// ---- the functions ------------------------------------------------------------------------------------

export const functions: Record<string, FuncSpec> = {
  base64encode: {
    params: [{ name: 'str', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(Buffer.from(args[0].str, 'utf8').toString('base64')),
  },
  base64decode: {
    params: [{ name: 'str', type: T.String, allowMarked: true, allowUnknown: true }],
    returns: T.String,
    impl: (args) => {
      const [sv, marks] = args[0].unmark();
      if (!sv.isKnown) return Value.unknown(T.String, { notNull: true }).markWith(marks);
      const r = goBase64Decode(sv.str);
      if (!r.bytes) throw new FuncError(`failed to decode base64 data ${redact(sv.str, marks)}`);
      if (!isValidUTF8(r.bytes)) throw new FuncError('the result of decoding the provided string is not valid UTF-8');
      return Value.string(r.bytes.toString('utf8')).markWith(marks);
    },
  },
  base64gzip: {
    params: [{ name: 'str', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(goGzip(Buffer.from(args[0].str, 'utf8')).toString('base64')),
  },
  textencodebase64: {
    params: [
      { name: 'string', type: T.String },
      { name: 'encoding', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const [codec, name] = lookupEncoding(args[1].str);
      const s = args[0].str;
      const b = encodeText(s, codec);
      if (decodeText(b, codec) !== s) throw new FuncArgError(0, `the given string contains characters that cannot be represented in ${name}`);
      return Value.string(b.toString('base64'));
    },
  },
  textdecodebase64: {
    params: [
      { name: 'source', type: T.String },
      { name: 'encoding', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const [codec, name] = lookupEncoding(args[1].str);
      const r = goBase64Decode(args[0].str);
      if (!r.bytes) throw new FuncArgError(0, `the given value is has an invalid base64 symbol at offset ${r.errOffset}`);
      const s = decodeText(r.bytes, codec);
      if (s.includes('\ufffd')) throw new FuncArgError(0, `the given string contains symbols that are not defined for ${name}`);
      return Value.string(s);
    },
  },
  urlencode: {
    params: [{ name: 'str', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(queryEscape(args[0].str)),
  },

  csvdecode: {
    params: [{ name: 'str', type: T.String }],
    type: (args) => {
      if (!args[0].isKnown) return T.Dynamic;
      const { header } = csvParse(args[0].str);
      const attrs = new Map<string, Type>();
      for (const h of header) attrs.set(h, T.String);
      return T.List(T.Obj(attrs));
    },
    impl: (args) => {
      const { header, rows } = csvParse(args[0].str);
      const attrs = new Map<string, Type>();
      for (const h of header) attrs.set(h, T.String);
      const objT = T.Obj(attrs);
      const elems = rows.map((r) => {
        const m = new Map<string, Value>();
        header.forEach((h, k) => m.set(h, Value.string(r[k])));
        return Value.raw(objT, m);
      });
      return Value.list(elems, objT);
    },
  },

  jsonencode: {
    params: [{ name: 'val', type: T.Dynamic, allowNull: true, allowDynamicType: true, allowMarked: true, allowUnknown: true }],
    returns: T.String,
    impl: (args) => {
      const [v, marks] = unmarkAll(args[0]);
      if (!v.isWhollyKnown) return Value.unknown(T.String, { notNull: true }).markWith(marks);
      return Value.string(jsonSerialize(v)).markWith(marks);
    },
  },
  jsondecode: {
    params: [{ name: 'str', type: T.String }],
    type: (args) => (args[0].isKnown ? jsonDecodeOrThrow(args[0].str).type : T.Dynamic),
    impl: (args) => jsonDecodeOrThrow(args[0].str),
  },

  yamlencode: {
    params: [{ name: 'value', type: T.Dynamic, allowNull: true, allowDynamicType: true, allowMarked: true, allowUnknown: true }],
    returns: T.String,
    impl: (args) => {
      const [v, marks] = unmarkAll(args[0]);
      if (!v.isWhollyKnown) return Value.unknown(T.String, { notNull: true }).markWith(marks);
      return Value.string(yamlEncode(v)).markWith(marks);
    },
  },
  yamldecode: {
    params: [{ name: 'src', type: T.String }],
    type: (args) => (args[0].isKnown ? yamlDecode(args[0].str).type : T.Dynamic),
    impl: (args) => yamlDecode(args[0].str),
  },
};
