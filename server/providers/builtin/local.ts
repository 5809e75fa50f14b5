// The `local` provider (registry.terraform.io/hashicorp/local), compatible with hashicorp/local 2.5.3 for the
// types listed here (the local_command action/data source/ephemeral and the direxists function of 2.6+ are not
// offered):
//
// - resources `local_file` and `local_sensitive_file`: write `content` / `sensitive_content` / `content_base64`
//   / `source` (exactly one, with the framework ExactlyOneOf texts) to `filename`, creating missing parent
//   directories with `directory_permission`; `file_permission`/`directory_permission` default "0777"
//   (local_file) or "0700" (local_sensitive_file) and are checked as octal strings of 3–4 digits; every
//   configurable attribute forces replacement; `id` is the hex SHA-1 of the written bytes, with the md5, sha1,
//   sha256, sha512 (hex and base64) checksums beside it. Refresh removes the object from the state when the
//   file is gone or its SHA-1 no longer equals `id` (so changes made outside Terraform plan a re-create).
//   Destroy deletes the file, ignoring errors. No import (the framework's "Resource Import Not Implemented").
// - data sources `local_file` and `local_sensitive_file`: read `filename`; `content` (invalid UTF-8 replaced by
//   U+FFFD) and `content_base64`, sensitive in the sensitive variant, plus the same checksums.
//
// Relative paths are resolved against the provider's working directory (BuiltinOptions.workingDir, else the
// process's), which is where Terraform starts provider plugins. File system errors are reported with Go's
// *PathError wording (`open <path>: no such file or directory`). Written with the SDK (../sdk).
// Siblings: index.ts (registration), archive.ts (reuses the checksums and the Go error wording).

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Value } from '../../lang/value';
import type { Provider, ProviderDiagnostic } from '../provider';
import type { AttributeSpec, DataSourceType, ResourceType, Validator } from '../sdk';
import { attr, attrError, defineProvider, get, plainError, requiresReplace, S, str, validator, withAttrs } from '../sdk';

export const LOCAL_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/local';

// ---- shared helpers (also used by archive.ts) --------------------------------------------------------------------

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  EEXIST: 'file exists',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
};

/** A Node file system error in the words of Go's *PathError: `<op> <path>: <strerror>`. */
export function goPathError(op: string, p: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  const text = (code && ERRNO_TEXT[code]) ?? (e instanceof Error ? e.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '') : String(e));
  return `${op} ${p}: ${text}`;
}

/** The checksums hashicorp/local (and archive) report for a file's bytes. */
export interface Checksums {
  md5Hex: string;
  sha1Hex: string;
  sha256Hex: string;
  sha256Base64: string;
  sha512Hex: string;
  sha512Base64: string;
}
export function checksums(b: Uint8Array): Checksums {
  const h = (alg: string) => createHash(alg).update(b).digest();
  const sha256 = h('sha256');
  const sha512 = h('sha512');
  return {
    md5Hex: h('md5').toString('hex'),
    sha1Hex: h('sha1').toString('hex'),
    sha256Hex: sha256.toString('hex'),
    sha256Base64: sha256.toString('base64'),
    sha512Hex: sha512.toString('hex'),
    sha512Base64: sha512.toString('base64'),
  };
}

/** The `content_*` checksum attributes of a local_file object. */
function checksumAttrs(c: Checksums) {
  return {
    content_md5: S(c.md5Hex),
    content_sha1: S(c.sha1Hex),
    content_sha256: S(c.sha256Hex),
    content_base64sha256: S(c.sha256Base64),
    content_sha512: S(c.sha512Hex),
    content_base64sha512: S(c.sha512Base64),
  };
}

const B64STD = /^[A-Za-z0-9+/]*$/;

/** Go's base64.StdEncoding.DecodeString (padding required, no whitespace but \r\n); errors in Go's words. */
export function goBase64Decode(s: string): { bytes: Buffer } | { error: string } {
  const clean = s.replace(/[\r\n]/g, '');
  // Go reports the offset in the input with newlines removed; good enough for the messages users see.
  const body = clean.replace(/={1,2}$/, '');
  for (let i = 0; i < body.length; i++) if (!B64STD.test(body[i])) return { error: `illegal base64 data at input byte ${i}` };
  if (clean.length % 4 !== 0) {
    const bad = clean.length - (clean.length % 4);
    return { error: `illegal base64 data at input byte ${body.length % 4 === 1 ? body.length - 1 : bad}` };
  }
  if (body.length % 4 === 1) return { error: `illegal base64 data at input byte ${body.length - 1}` };
  return { bytes: Buffer.from(body, 'base64') };
}

/** Resolves a configured path as the provider process would (relative to its working directory). */
export function resolveIn(workingDir: string | undefined, p: string): string {
  return path.resolve(workingDir ?? process.cwd(), p);
}

// ---- validators ----------------------------------------------------------------------------------------------------

/**
 * The framework's stringvalidator.ExactlyOneOf(expressions...) on attribute `self`, with root paths. `self`
 * counts when set; the message lists exactly the given expressions (MergeExpressions does not add the
 * attribute itself, and a listed `self` is not counted twice).
 */
export function exactlyOneOf(self: string, ...expressions: string[]): Validator {
  const others = expressions.filter((e) => e !== self);
  return validator(`Ensure that one and only one attribute from this collection is set: [${expressions.join(',')}]`, ({ path: p, value, config }) => {
    if (!value.isKnown) return [];
    let count = value.isNull ? 0 : 1;
    for (const o of others) {
      const v = get(config, o);
      if (!v.isKnown) return [];
      if (!v.isNull) count++;
    }
    const list = `[${expressions.join(',')}]`;
    if (count === 0) return [attrError(p, 'Invalid Attribute Combination', `No attribute specified when one (and only one) of ${list} is required`)];
    if (count > 1) return [attrError(p, 'Invalid Attribute Combination', `${count} attributes specified when one (and only one) of ${list} is required`)];
    return [];
  });
}

/** hashicorp/local's FilePermissionType validation: 3 or 4 octal digits, at most 0777 (Go's ParseInt base 8). */
const filePermission: Validator = validator('file permission in numeric notation', ({ path: p, value }) => {
  if (!value.isKnown || value.isNull) return [];
  const fp = value.str;
  const len = Buffer.byteLength(fp, 'utf8');
  if (len < 3 || len > 4) return [attrError(p, 'Invalid File Permission String Value', `bad mode permission: string length should be 3 or 4 digits: ${fp}`)];
  const ok = /^[+-]?[0-7]+$/.test(fp) && parseInt(fp, 8) >= 0 && parseInt(fp, 8) <= 0o777;
  if (!ok) return [attrError(p, 'Invalid File Permission String Value', `bad mode permission: string must be expressed in octal numeric notation: ${fp}`)];
  return [];
});

// ---- local_file / local_sensitive_file -------------------------------------------------------------------------------

const FILENAME_DESC = 'The path to the file that will be created.\n Missing parent directories will be created.\n If the file already exists, it will be overridden with the given content.';
const permDesc = (what: string, def: string) =>
  `Permissions to set for ${what} (before umask), expressed as string in\n [numeric notation](https://en.wikipedia.org/wiki/File-system_permissions#Numeric_notation).\n Default value is \`"${def}"\`.`;

function checksumSpecs(): Record<string, AttributeSpec> {
  return {
    content_md5: attr.string({ computed: true, description: 'MD5 checksum of file content.' }),
    content_sha1: attr.string({ computed: true, description: 'SHA1 checksum of file content.' }),
    content_sha256: attr.string({ computed: true, description: 'SHA256 checksum of file content.' }),
    content_base64sha256: attr.string({ computed: true, description: 'Base64 encoded SHA256 checksum of file content.' }),
    content_sha512: attr.string({ computed: true, description: 'SHA512 checksum of file content.' }),
    content_base64sha512: attr.string({ computed: true, description: 'Base64 encoded SHA512 checksum of file content.' }),
  };
}

const CREATE_ERR = 'Create local file error';
const createError = (what: string, msg: string): ProviderDiagnostic => plainError(CREATE_ERR, `An unexpected error occurred while ${what}\n\n+Original Error: ${msg}`);

/** The bytes a planned local_file writes: sensitive_content, then content_base64, then source, then content. */
function contentOf(planned: Value, workingDir: string | undefined): { bytes: Buffer } | { error: string } {
  const sc = get(planned, 'sensitive_content');
  if (sc.isKnown && !sc.isNull) return { bytes: Buffer.from(sc.str, 'utf8') };
  const b64 = get(planned, 'content_base64');
  if (b64.isKnown && !b64.isNull) return goBase64Decode(b64.str);
  const src = get(planned, 'source');
  if (src.isKnown && !src.isNull) {
    try {
      return { bytes: fs.readFileSync(resolveIn(workingDir, src.str)) };
    } catch (e) {
      return { error: goPathError('open', src.str, e) };
    }
  }
  return { bytes: Buffer.from(str(get(planned, 'content')) ?? '', 'utf8') };
}

function fileResource(sensitive: boolean, workingDir: string | undefined): ResourceType {
  const def = sensitive ? '0700' : '0777';
  const sources = sensitive ? ['content', 'content_base64', 'source'] : ['content', 'sensitive_content', 'content_base64', 'source'];
  const one = (self: string) => exactlyOneOf(self, ...sources.filter((s) => s !== self));
  const n = sensitive ? 'three' : 'four';
  const conflicts = (self: string) => {
    const others = sources.filter((s) => s !== self).map((s) => `\`${s}\``);
    return `Conflicts with ${others.slice(0, -1).join(', ')} and ${others[others.length - 1]}.\n Exactly one of these ${n} arguments must be specified.`;
  };
  const attributes: Record<string, AttributeSpec> = {
    filename: attr.string({ required: true, description: FILENAME_DESC, planModifiers: [requiresReplace()] }),
    content: attr.string({
      optional: true,
      sensitive,
      description: `${sensitive ? 'Sensitive Content' : 'Content'} to store in the file, expected to be a UTF-8 encoded string.\n ${conflicts('content')}`,
      planModifiers: [requiresReplace()],
      validators: [one('content')],
    }),
    content_base64: attr.string({
      optional: true,
      sensitive,
      description: `${sensitive ? 'Sensitive Content' : 'Content'} to store in the file, expected to be binary encoded as base64 string.\n ${conflicts('content_base64')}`,
      planModifiers: [requiresReplace()],
      validators: [one('content_base64')],
    }),
    source: attr.string({
      optional: true,
      description: `Path to file to use as source for the one we are creating.\n ${conflicts('source')}`,
      planModifiers: [requiresReplace()],
      validators: [one('source')],
    }),
    file_permission: attr.string({ optional: true, computed: true, default: def, description: permDesc('the output file', def), planModifiers: [requiresReplace()], validators: [filePermission] }),
    directory_permission: attr.string({ optional: true, computed: true, default: def, description: permDesc('directories created', def), planModifiers: [requiresReplace()], validators: [filePermission] }),
    id: attr.string({ computed: true, description: 'The hexadecimal encoding of the SHA1 checksum of the file content.' }),
  };
  if (!sensitive) {
    attributes.sensitive_content = attr.string({
      optional: true,
      sensitive: true,
      deprecationMessage: 'Use the `local_sensitive_file` resource instead',
      description:
        'Sensitive content to store in the file, expected to be an UTF-8 encoded string.\n Will not be displayed in diffs.\n Conflicts with `content`, `content_base64` and `source`.\n Exactly one of these four arguments must be specified.\n If in need to use _sensitive_ content, please use the [`local_sensitive_file`](./sensitive_file.html)\n resource instead.',
      planModifiers: [requiresReplace()],
      validators: [one('sensitive_content')],
    });
  }
  Object.assign(attributes, checksumSpecs());
  return {
    description: sensitive ? 'Generates a local file with the given sensitive content.' : 'Generates a local file with the given content.',
    attributes,
    create({ planned }) {
      const c = contentOf(planned, workingDir);
      if ('error' in c) return { state: null, diagnostics: [createError('parsing local file content', c.error)] };
      const filename = str(get(planned, 'filename')) ?? '';
      const dest = resolveIn(workingDir, filename);
      const dir = path.dirname(dest);
      if (!fs.existsSync(dir)) {
        try {
          fs.mkdirSync(dir, { recursive: true, mode: parseInt(str(get(planned, 'directory_permission')) ?? def, 8) });
        } catch (e) {
          return { state: null, diagnostics: [createError('creating file directory', goPathError('mkdir', path.dirname(filename), e))] };
        }
      }
      try {
        fs.writeFileSync(dest, c.bytes, { mode: parseInt(str(get(planned, 'file_permission')) ?? def, 8) });
      } catch (e) {
        return { state: null, diagnostics: [createError('writing the file', goPathError('open', filename, e))] };
      }
      const sums = checksums(c.bytes);
      return { state: withAttrs(planned, { ...checksumAttrs(sums), id: S(sums.sha1Hex) }) };
    },
    read({ state }) {
      const filename = str(get(state, 'filename')) ?? '';
      const dest = resolveIn(workingDir, filename);
      // os.Stat follows symlinks: a missing file (or a dangling link) means the object is gone.
      try {
        fs.statSync(dest);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: null };
      }
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(dest);
      } catch (e) {
        return { state, diagnostics: [plainError('Read local file error', `An unexpected error occurred while reading the file\n\n+Original Error: ${goPathError('read', filename, e)}`)] };
      }
      if (checksums(bytes).sha1Hex !== str(get(state, 'id'))) return { state: null };
      return { state };
    },
    delete({ prior }) {
      try {
        fs.rmSync(resolveIn(workingDir, str(get(prior, 'filename')) ?? ''), { force: true });
      } catch {
        // hashicorp/local ignores the error of os.Remove.
      }
      return {};
    },
  };
}

function fileDataSource(sensitive: boolean, workingDir: string | undefined): DataSourceType {
  return {
    description: sensitive ? 'Reads a file that contains sensitive data, from the local filesystem.' : 'Reads a file from the local filesystem.',
    attributes: {
      filename: attr.string({ required: true, description: 'Path to the file that will be read. The data source will return an error if the file does not exist.' }),
      content: attr.string({
        computed: true,
        sensitive,
        description: `Raw content of the file that was read, as UTF-8 encoded string. Files that do not contain UTF-8 text will have invalid UTF-8 sequences in \`content\`\n  replaced with the Unicode replacement character.${sensitive ? '' : ' '}`,
      }),
      content_base64: attr.string({ computed: true, sensitive, description: 'Base64 encoded version of the file content (use this when dealing with binary data).' }),
      id: attr.string({ computed: true, description: 'The hexadecimal encoding of the SHA1 checksum of the file content.' }),
      ...checksumSpecs(),
    },
    read({ config }) {
      const filename = str(get(config, 'filename')) ?? '';
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(resolveIn(workingDir, filename));
      } catch (e) {
        const op = (e as NodeJS.ErrnoException).code === 'EISDIR' ? 'read' : 'open';
        return {
          state: null,
          diagnostics: [plainError('Read local file data source error', `The file at given path cannot be read.\n\n+Original Error: ${goPathError(op, filename, e)}`)],
        };
      }
      const sums = checksums(bytes);
      return {
        state: { filename: get(config, 'filename'), content: S(bytes.toString('utf8')), content_base64: S(bytes.toString('base64')), id: S(sums.sha1Hex), ...checksumAttrs(sums) },
      };
    },
  };
}

/** The `local` provider; relative paths resolve against `workingDir`. */
export function localProvider(opts: { workingDir?: string } = {}): Provider {
  return defineProvider({
    name: 'local',
    resources: { local_file: fileResource(false, opts.workingDir), local_sensitive_file: fileResource(true, opts.workingDir) },
    dataSources: { local_file: fileDataSource(false, opts.workingDir), local_sensitive_file: fileDataSource(true, opts.workingDir) },
  });
}
