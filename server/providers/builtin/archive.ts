// The `archive` provider (registry.terraform.io/hashicorp/archive), compatible with hashicorp/archive 2.7.1:
// data source and resource `archive_file`.
//
// Both build a `zip` or `tar.gz` archive at `output_path` (parent directories created 0755) from exactly one
// kind of source: `source_content` + `source_content_filename`, `source_file`, `source_dir` (with `excludes`
// glob patterns, `**` included, and `exclude_symlink_directories`) or `source` blocks (entries sorted by
// filename); "Missing Attribute Configuration" when none is set and ConflictsWith errors when several are.
// Outputs: size, md5/sha1/sha256/sha512 (hex and base64) and `id` = SHA-1 of the archive. The data source
// builds during plan; the resource builds at create and again at every refresh (as the provider does), every
// argument forces replacement, and it has no import.
//
// Archives are deterministic: the same input gives the same bytes. Zip entries follow Go's archive/zip
// layout (deflate, data descriptors, zero DOS time as Go writes time.Time{}, Unix modes for files, none for
// content entries, `output_file_mode` overriding modes); tar.gz is USTAR with zero times and a gzip header
// without name or time. The compressed bytes come from zlib, not Go's compress/flate, so checksums differ
// from HashiCorp's binary for the same input. Written with the SDK (../sdk). Siblings: local.ts (checksums,
// Go error wording), index.ts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import * as T from '../../lang/types';
import type { Value } from '../../lang/value';
import { attrStep } from '../path';
import type { Provider, ProviderDiagnostic } from '../provider';
import type { NestedBlock } from '../schema';
import type { AttributeSpec, ResourceType, StateResult, Validator } from '../sdk';
import { attr, attrError, defineProvider, frameworkPath, get, N, plainError, requiresReplace, S, str, strings, validator, withAttrs } from '../sdk';
import { checksums, resolveIn } from './local';

export const ARCHIVE_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/archive';

// ---- CRC-32 (the checksum zip and gzip require; not a cryptographic primitive) -----------------------------------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
export function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// ---- writers -------------------------------------------------------------------------------------------------------

/** One archive member. `mode` undefined: a content entry (Go's zip.Writer.Create; tar mode 0). */
export interface Entry {
  name: string;
  data: Buffer;
  mode?: number;
}

/** Go's zip DOS date for time.Time{} (uint16 wrap of year 1), time 0. */
const ZERO_DOS_DATE = (1 + (1 << 5) + ((1 - 1980) << 9)) & 0xffff;

/** A zip archive laid out as Go's archive/zip writes streamed entries. */
export function zipBytes(entries: readonly Entry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const nonAscii = [...name].some((x) => x >= 0x80);
    const flags = 0x8 | (nonAscii ? 0x800 : 0);
    const comp = deflateRawSync(e.data);
    const crc = crc32(e.data);
    const fileInfo = e.mode !== undefined;
    const date = fileInfo ? ZERO_DOS_DATE : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt16LE(name.length, 26);
    const dd = Buffer.alloc(16);
    dd.writeUInt32LE(0x08074b50, 0);
    dd.writeUInt32LE(crc, 4);
    dd.writeUInt32LE(comp.length, 8);
    dd.writeUInt32LE(e.data.length, 12);
    parts.push(local, name, comp, dd);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    // Go's FileInfoHeader marks the creator as Unix (3) with the mode in the external attributes.
    c.writeUInt16LE(fileInfo ? (3 << 8) | 20 : 20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(flags, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt16LE(0, 12);
    c.writeUInt16LE(date, 14);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(comp.length, 20);
    c.writeUInt32LE(e.data.length, 24);
    c.writeUInt16LE(name.length, 28);
    let ext = 0;
    if (fileInfo) {
      const m = e.mode! & 0o7777;
      ext = (((0o100000 | (m & 0o777)) << 16) >>> 0) | (m & 0o200 ? 0 : 0x01);
    }
    c.writeUInt32LE(ext >>> 0, 38);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += local.length + name.length + comp.length + dd.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

/** Go's tar formatOctal: zero-padded octal digits and a NUL in a field of `width` bytes. */
function octal(buf: Buffer, off: number, width: number, v: number): void {
  buf.write(v.toString(8).padStart(width - 1, '0') + '\0', off, width, 'latin1');
}

/** A USTAR tar stream (zero times and owners, Go's field formatting, two zero blocks, no record padding), gzipped as Go's gzip.Writer does. */
export function tarGzBytes(entries: readonly Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const h = Buffer.alloc(512);
    let name = e.name;
    let prefix = '';
    if (Buffer.byteLength(name) > 100) {
      const cut = name.lastIndexOf('/', name.length - 1);
      if (cut > 0 && Buffer.byteLength(name.slice(0, cut)) <= 155 && Buffer.byteLength(name.slice(cut + 1)) <= 100) {
        prefix = name.slice(0, cut);
        name = name.slice(cut + 1);
      }
    }
    h.write(name, 0, 100, 'utf8');
    octal(h, 100, 8, (e.mode ?? 0) & 0o7777);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, e.data.length);
    octal(h, 136, 12, 0);
    h.write('        ', 148, 8, 'latin1');
    h.write('0', 156, 1, 'latin1');
    h.write('ustar\0', 257, 6, 'latin1');
    h.write('00', 263, 2, 'latin1');
    octal(h, 329, 8, 0);
    octal(h, 337, 8, 0);
    h.write(prefix, 345, 155, 'utf8');
    let sum = 0;
    for (const x of h) sum += x;
    octal(h, 148, 7, sum);
    h.write(' ', 155, 1, 'latin1');
    blocks.push(h, e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(tar), 0);
  trailer.writeUInt32LE(tar.length >>> 0, 4);
  return Buffer.concat([header, deflateRawSync(tar), trailer]);
}

// ---- sources ---------------------------------------------------------------------------------------------------------

/** doublestar.PathMatch as a regular expression: `**` spans directories, `*` and `?` stay within one, `[..]` and `{a,b}`. */
export function globRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        const slashAfter = pattern[i + 2] === '/';
        re += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const j = pattern.indexOf(']', i + 1);
      if (j < 0) re += '\\[';
      else {
        re += '[' + pattern.slice(i + 1, j).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
        i = j;
      }
    } else if (c === '{') {
      const j = pattern.indexOf('}', i + 1);
      if (j < 0) re += '\\{';
      else {
        re += '(?:' + pattern.slice(i + 1, j).split(',').map((a) => a.replace(/[.+^$()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')).join('|') + ')';
        i = j;
      }
    } else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

class ArchiveError extends Error {}

/** filepath.Walk of a directory: regular files (and symlinks resolved) in lexical order, excluded paths skipped. */
function walkDir(root: string, base: string, excludes: RegExp[], skipSymlinkDirs: boolean, out: Entry[], modeOverride: number | undefined): void {
  const visit = (dir: string, rel: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const archivePath = path.posix.join(rel, name);
      const st = fs.lstatSync(full);
      const matched = excludes.some((r) => r.test(archivePath));
      if (st.isDirectory()) {
        if (!matched) visit(full, archivePath);
        continue;
      }
      if (matched) continue;
      let info = st;
      if (st.isSymbolicLink()) {
        let real: string;
        try {
          real = fs.realpathSync(full);
          info = fs.statSync(real);
        } catch {
          throw new ArchiveError(`lstat ${full}: no such file or directory`);
        }
        if (info.isDirectory()) {
          if (!skipSymlinkDirs) visit(real, archivePath);
          continue;
        }
      }
      out.push({ name: archivePath, data: fs.readFileSync(full), mode: modeOverride ?? info.mode & 0o777 });
    }
  };
  visit(root, base);
}

/** The entries an archive_file configuration asks for, or the provider's error text. */
function collect(obj: Value, workingDir: string | undefined): { entries: Entry[] } | { error: string } {
  const modeText = str(get(obj, 'output_file_mode')) ?? '';
  let mode: number | undefined;
  if (modeText !== '') {
    const m = /^0[xX][0-9a-fA-F]+$|^0[oO]?[0-7]*$|^[1-9][0-9]*$|^0[bB][01]+$/.test(modeText) ? Number(modeText.replace(/^0(?=[0-7])/, '0o')) : NaN;
    if (Number.isNaN(m) || m > 0xffffffff) return { error: `error parsing output_file_mode value: ${modeText}` };
    mode = m;
  }
  const sourceDir = get(obj, 'source_dir');
  const sourceFile = get(obj, 'source_file');
  const contentName = get(obj, 'source_content_filename');
  const blocks = get(obj, 'source');
  if (!sourceDir.isNull) {
    const dir = resolveIn(workingDir, sourceDir.str);
    if (!fs.existsSync(dir)) return { error: `error archiving directory: could not archive missing directory: ${sourceDir.str}` };
    if (!fs.statSync(dir).isDirectory()) return { error: `error archiving directory: could not archive directory that is a file: ${sourceDir.str}` };
    const excludes = strings(get(obj, 'excludes')).map(globRegExp);
    const skip = get(obj, 'exclude_symlink_directories');
    const entries: Entry[] = [];
    try {
      walkDir(dir, '', excludes, !skip.isNull && skip.bool, entries, mode);
    } catch (e) {
      return { error: `error archiving directory: error encountered during file walk: ${(e as Error).message}` };
    }
    if (entries.length === 0) return { error: 'error archiving directory: archive has not been created as it would be empty' };
    return { entries };
  }
  if (!sourceFile.isNull) {
    const f = resolveIn(workingDir, sourceFile.str);
    if (!fs.existsSync(f)) return { error: `error archiving file: could not archive missing file: ${sourceFile.str}` };
    const st = fs.statSync(f);
    return { entries: [{ name: path.basename(sourceFile.str), data: fs.readFileSync(f), mode: mode ?? st.mode & 0o777 }] };
  }
  if (!contentName.isNull) {
    return { entries: [{ name: contentName.str.split(path.sep).join('/'), data: Buffer.from(str(get(obj, 'source_content')) ?? '', 'utf8') }] };
  }
  if (!blocks.isNull && blocks.isKnown) {
    const byName = new Map<string, Buffer>();
    for (const e of blocks.elems) byName.set(get(e, 'filename').str, Buffer.from(get(e, 'content').str, 'utf8'));
    return { entries: [...byName.keys()].sort().map((k) => ({ name: k, data: byName.get(k)! })) };
  }
  return { entries: [] };
}

/** Builds the archive and returns the output attributes (updateModel), or the provider's diagnostic. */
function build(obj: Value, workingDir: string | undefined): { attrs: Record<string, Value> } | { diag: ProviderDiagnostic } {
  const type = str(get(obj, 'type')) ?? '';
  const outputPath = str(get(obj, 'output_path')) ?? '';
  const out = resolveIn(workingDir, outputPath);
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true, mode: 0o755 });
  } catch (e) {
    return { diag: plainError('Output path error', `error creating output path: ${(e as Error).message}`) };
  }
  if (type !== 'zip' && type !== 'tar.gz') return { diag: plainError('Archive creation error', `error creating archive: archive type not supported: ${type}`) };
  const c = collect(obj, workingDir);
  if ('error' in c) return { diag: plainError('Archive creation error', `error creating archive: ${c.error}`) };
  // tar.gz content entries have mode 0 and file entries their own mode, as in the provider.
  const bytes = type === 'zip' ? zipBytes(c.entries) : tarGzBytes(c.entries);
  try {
    fs.writeFileSync(out, bytes);
  } catch (e) {
    return { diag: plainError('Archive creation error', `error creating archive: open ${outputPath}: ${(e as Error).message}`) };
  }
  const sums = checksums(bytes);
  return {
    attrs: {
      output_size: N(bytes.length),
      output_md5: S(sums.md5Hex),
      output_sha: S(sums.sha1Hex),
      output_sha256: S(sums.sha256Hex),
      output_base64sha256: S(sums.sha256Base64),
      output_sha512: S(sums.sha512Hex),
      output_base64sha512: S(sums.sha512Base64),
      id: S(sums.sha1Hex),
    },
  };
}

// ---- schema ----------------------------------------------------------------------------------------------------------

/** stringvalidator/setvalidator.ConflictsWith: an error for each other listed attribute that is also set. */
function conflictsWith(...others: string[]): Validator {
  return validator(`Ensure that if an attribute is set, these are not set: "[${others.join(',')}]"`, ({ path: p, value, config }) => {
    if (value.isNull || !value.isKnown) return [];
    const out: ProviderDiagnostic[] = [];
    for (const o of others) {
      const v = get(config, o);
      if (!v.isKnown || v.isNull) continue;
      out.push(attrError(p, 'Invalid Attribute Combination', `Attribute "${o}" cannot be specified when "${frameworkPath(p)}" is specified`));
    }
    return out;
  });
}

const SOURCES = ['source', 'source_content_filename', 'source_file', 'source_dir'];
const ONE_OF = 'One and only one of `source`, `source_content_filename` (with `source_content`), `source_file`, or `source_dir` must be specified.';

function archiveAttrs(resource: boolean): Record<string, AttributeSpec> {
  const rr = resource ? [requiresReplace()] : [];
  const computed = (description: string) => attr.string({ computed: true, description });
  return {
    id: computed('The sha1 checksum hash of the output.'),
    type: attr.string({ required: true, description: 'The type of archive to generate. NOTE: `zip` and `tar.gz` is supported.', planModifiers: rr }),
    source_content: attr.string({ optional: true, description: `Add only this content to the archive with \`source_content_filename\` as the filename. ${ONE_OF}`, planModifiers: rr, validators: [conflictsWith('source_file', 'source_dir')] }),
    source_content_filename: attr.string({ optional: true, description: `Set this as the filename when using \`source_content\`. ${ONE_OF}`, planModifiers: rr, validators: [conflictsWith('source_file', 'source_dir')] }),
    source_file: attr.string({ optional: true, description: `Package this file into the archive. ${ONE_OF}`, planModifiers: rr, validators: [conflictsWith('source_dir', 'source_content', 'source_content_filename')] }),
    source_dir: attr.string({ optional: true, description: `Package entire contents of this directory into the archive. ${ONE_OF}`, planModifiers: rr, validators: [conflictsWith('source_file', 'source_content', 'source_content_filename')] }),
    excludes: attr.set(T.String, { optional: true, description: 'Specify files/directories to ignore when reading the `source_dir`. Supports glob file matching patterns including doublestar/globstar (`**`) patterns.', planModifiers: rr, validators: [conflictsWith('source_file', 'source_content', 'source_content_filename')] }),
    exclude_symlink_directories: attr.bool({ optional: true, description: 'Boolean flag indicating whether symbolically linked directories should be excluded during the creation of the archive. Defaults to `false`.', planModifiers: rr }),
    output_path: attr.string({ required: true, description: 'The output of the archive file.', planModifiers: rr }),
    output_size: attr.int64({ computed: true, description: 'The byte size of the output archive file.' }),
    output_file_mode: attr.string({ optional: true, description: 'String that specifies the octal file mode for all archived files. For example: `"0666"`.', planModifiers: rr }),
    output_md5: computed('MD5 of output file'),
    output_sha: computed('SHA1 checksum of output file'),
    output_sha256: computed('SHA256 checksum of output file'),
    output_base64sha256: computed('Base64 Encoded SHA256 checksum of output file'),
    output_sha512: computed('SHA512 checksum of output file'),
    output_base64sha512: computed('Base64 Encoded SHA512 checksum of output file'),
  };
}

const SOURCE_BLOCK: NestedBlock = {
  nesting: 'set',
  block: {
    attributes: {
      content: { type: T.String, required: true, description: 'Add this content to the archive with `filename` as the filename.' },
      filename: { type: T.String, required: true, description: 'Set this as the filename when declaring a `source`.' },
    },
    blockTypes: {},
    description: `Specifies attributes of a single source file to include into the archive. ${ONE_OF}`,
  },
};

/**
 * The config-level AtLeastOneOf and the source block's ConflictsWith. Core sends an empty set for absent
 * `source` blocks; it counts as not configured (otherwise every `source_file` configuration would conflict).
 */
function validateArchive(config: Value): ProviderDiagnostic[] {
  if (config.isNull || !config.isKnown) return [];
  const out: ProviderDiagnostic[] = [];
  const src = get(config, 'source');
  const srcSet = src.isKnown && !src.isNull && src.elems.length > 0;
  if (srcSet) out.push(...conflictsWith('source_file', 'source_dir', 'source_content', 'source_content_filename').validate({ path: [attrStep('source')], value: src, config }));
  let unknown = !src.isKnown;
  let any = srcSet;
  for (const n of SOURCES.slice(1)) {
    const v = get(config, n);
    if (!v.isKnown) unknown = true;
    else if (!v.isNull) any = true;
  }
  if (!any && !unknown) out.push(plainError('Missing Attribute Configuration', `At least one of these attributes must be configured: [${SOURCES.join(',')}]`));
  return out;
}

function archiveResource(workingDir: string | undefined): ResourceType {
  const run = (obj: Value): StateResult => {
    const r = build(obj, workingDir);
    return 'diag' in r ? { state: null, diagnostics: [r.diag] } : { state: withAttrs(obj, r.attrs) };
  };
  return {
    description: 'Generates an archive from content, a file, or directory of files.',
    attributes: archiveAttrs(true),
    blocks: { source: SOURCE_BLOCK },
    validateConfig: validateArchive,
    modifyPlan({ prior, planned }) {
      // RequiresReplace on the source block (the SDK runs plan modifiers on attributes only).
      if (prior.isNull || planned.isNull) return {};
      const a = get(prior, 'source');
      const b = get(planned, 'source');
      return sameSet(a, b) ? {} : { requiresReplace: [[attrStep('source')]] };
    },
    create: ({ planned }) => run(planned),
    read({ state }) {
      const r = run(state);
      return r.state === null ? { state, diagnostics: r.diagnostics } : r;
    },
  };
}

function sameSet(a: Value, b: Value): boolean {
  const key = (v: Value) => (v.isNull || !v.isKnown ? String(v.isKnown) : JSON.stringify(v.elems.map((e) => [get(e, 'filename').str, get(e, 'content').str]).sort()));
  return key(a) === key(b);
}

/** The `archive` provider; relative paths resolve against `workingDir`. */
export function archiveProvider(opts: { workingDir?: string } = {}): Provider {
  return defineProvider({
    name: 'archive',
    resources: { archive_file: archiveResource(opts.workingDir) },
    dataSources: {
      archive_file: {
        description: 'Generates an archive from content, a file, or directory of files. The archive is built during the terraform plan.',
        attributes: archiveAttrs(false),
        blocks: { source: SOURCE_BLOCK },
        validateConfig: validateArchive,
        read({ config }) {
          const r = build(config, opts.workingDir);
          return 'diag' in r ? { state: null, diagnostics: [r.diag] } : { state: withAttrs(config, r.attrs) };
        },
      },
    },
  });
}
