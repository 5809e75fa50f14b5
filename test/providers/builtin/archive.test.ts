// Tests for the built-in archive provider (server/providers/builtin/archive.ts) through the loopback: the
// archive_file data source and resource building zip and tar.gz archives from content, a file, a directory
// (excludes with **, symlinked directories) and source blocks; deterministic bytes; output_file_mode; the
// provider's errors and validation; the resource's create, no-op plan, replacement, refresh (which rebuilds the
// archive, also after it was deleted or its sources changed) and missing import. Archives are read back with
// Python's zipfile/tarfile when python3 is installed (file entries carry the DOS date 2049-01-01 that Go's
// uint16 wrap of time.Time{} gives; content entries the zero date 1980). Each test works in its own temporary directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { formatError } from '../../../server/providers/path';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../../server/providers/provider';
import { ARCHIVE_PROVIDER_ADDRESS } from '../../../server/providers/builtin/archive';
import { valueConformsToSchema } from '../../../server/plans/objchange/conformance';
import { objectFor } from '../../../server/providers/sdk';
import { Harness, at, diagText } from './_harness';

const s = (x: string) => Value.string(x);
const AF = 'archive_file';

interface Case {
  scenario: string;
  run: (h: Harness, dir: string) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-archive-'));
    try {
      assert.deepEqual(await c.run(new Harness(ARCHIVE_PROVIDER_ADDRESS, { workingDir: dir }), dir), c.want);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Reads the data source (its type name is also a resource type, which the harness looks up first). */
async function readData(h: Harness, attrs: Record<string, Value>): Promise<{ state: Value; diagnostics: string[] }> {
  const block = (await h.p.getProviderSchema()).dataSources[AF].block;
  const r = await h.p.readDataSource({ typeName: AF, config: objectFor(block, attrs), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  const diagnostics = r.diagnostics.map(diagText);
  if (!r.diagnostics.some((d) => d.severity === 'error')) {
    assert.deepEqual(valueConformsToSchema(block, r.state).map(formatError), []);
    assert.ok(r.state.isWhollyKnown);
  }
  return { state: r.state, diagnostics };
}
async function validateData(h: Harness, attrs: Record<string, Value>): Promise<string[]> {
  const block = (await h.p.getProviderSchema()).dataSources[AF].block;
  return (await h.p.validateDataResourceConfig({ typeName: AF, config: objectFor(block, attrs) })).diagnostics.map(diagText);
}

const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;
/** Lists an archive as "name mode content" lines with Python (which also checks CRCs); undefined without python3. */
function list(file: string): string[] | undefined {
  if (!hasPython) {
    console.log('# python3 not installed; archive contents not cross-checked');
    return undefined;
  }
  const script = `
import sys, zipfile, tarfile
f = sys.argv[1]
if f.endswith('.zip'):
    z = zipfile.ZipFile(f)
    assert z.testzip() is None
    for i in z.infolist():
        print(i.filename, oct(i.external_attr >> 16), i.date_time[0], z.read(i).decode())
else:
    t = tarfile.open(f, 'r:gz')
    for m in t.getmembers():
        print(m.name, oct(m.mode), m.mtime, t.extractfile(m).read().decode())
`;
  const r = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split('\n') : [`error: ${r.stderr}`];
}
function sourceBlocks(files: Record<string, string>): Value {
  const elems = Object.entries(files).map(([filename, content]) => Value.object({ content: s(content), filename: s(filename) }));
  return Value.set(elems, T.Obj({ content: T.String, filename: T.String }));
}
function tree(dir: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content, { mode: 0o644 });
  }
}

check({
  scenario: 'The archive_file data source zips source_content under its filename, creating the output directory, and reports size, checksums and the SHA-1 id of the archive.',
  run: async (h, dir) => {
    const r = await readData(h, { type: s('zip'), source_content: s('hello'), source_content_filename: s('greeting.txt'), output_path: s('out/sub/a.zip') });
    const bytes = fs.readFileSync(path.join(dir, 'out/sub/a.zip'));
    return [
      r.diagnostics,
      at(r.state, 'output_size').num.toNumber() === bytes.length,
      at(r.state, 'id').str === createHash('sha1').update(bytes).digest('hex'),
      at(r.state, 'output_base64sha256').str === createHash('sha256').update(bytes).digest('base64'),
      list(path.join(dir, 'out/sub/a.zip')) ?? ['greeting.txt 0o0 1980 hello'],
    ];
  },
  want: [[], true, true, true, ['greeting.txt 0o0 1980 hello']],
});

check({
  scenario: 'Archives are deterministic: the same sources give the same bytes even when file times change; source blocks are stored sorted by filename.',
  run: async (h, dir) => {
    tree(dir, { 'src/a.txt': 'A' });
    const one = await readData(h, { type: s('zip'), source_file: s('src/a.txt'), output_path: s('1.zip') });
    fs.utimesSync(path.join(dir, 'src/a.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const two = await readData(h, { type: s('zip'), source_file: s('src/a.txt'), output_path: s('2.zip') });
    const blocks = await readData(h, { type: s('zip'), source: sourceBlocks({ 'z.txt': 'last', 'b/c.txt': 'first' }), output_path: s('3.zip') });
    const t1 = await readData(h, { type: s('tar.gz'), source: sourceBlocks({ 'x.txt': 'x' }), output_path: s('4.tar.gz') });
    const t2 = await readData(h, { type: s('tar.gz'), source: sourceBlocks({ 'x.txt': 'x' }), output_path: s('5.tar.gz') });
    return [
      at(one.state, 'id').str === at(two.state, 'id').str,
      list(path.join(dir, '2.zip')) ?? ['a.txt 0o100644 2049 A'],
      blocks.diagnostics,
      list(path.join(dir, '3.zip')) ?? ['b/c.txt 0o0 1980 first', 'z.txt 0o0 1980 last'],
      at(t1.state, 'id').str === at(t2.state, 'id').str,
    ];
  },
  want: [true, ['a.txt 0o100644 2049 A'], [], ['b/c.txt 0o0 1980 first', 'z.txt 0o0 1980 last'], true],
});

check({
  scenario: 'source_dir archives files in lexical order with excludes (globs and **), follows symlinked directories unless excluded, and output_file_mode sets every mode.',
  run: async (h, dir) => {
    tree(dir, { 'src/a.txt': 'a', 'src/skip.log': 'no', 'src/deep/x/y.log': 'no', 'src/deep/keep.txt': 'k', 'other/o.txt': 'o' });
    fs.symlinkSync(path.join(dir, 'other'), path.join(dir, 'src/link'));
    await readData(h, { type: s('zip'), source_dir: s('src'), excludes: Value.set([s('*.log'), s('**/*.log')], T.String), output_path: s('d.zip'), output_file_mode: s('0666') });
    await readData(h, { type: s('zip'), source_dir: s('src'), excludes: Value.set([s('**/*.log')], T.String), exclude_symlink_directories: Value.bool(true), output_path: s('e.zip') });
    await readData(h, { type: s('tar.gz'), source_dir: s('src'), excludes: Value.set([s('deep'), s('*.log')], T.String), output_path: s('f.tar.gz') });
    return [list(path.join(dir, 'd.zip')), list(path.join(dir, 'e.zip')), list(path.join(dir, 'f.tar.gz'))];
  },
  want: hasPython
    ? [
        ['a.txt 0o100666 2049 a', 'deep/keep.txt 0o100666 2049 k', 'link/o.txt 0o100666 2049 o'],
        ['a.txt 0o100644 2049 a', 'deep/keep.txt 0o100644 2049 k'],
        ['a.txt 0o644 0 a', 'link/o.txt 0o644 0 o'],
      ]
    : [undefined, undefined, undefined],
});

check({
  scenario: 'archive_file errors: missing directory or file, a file given as directory, an empty directory, an unknown type and a bad output_file_mode.',
  run: async (h, dir) => {
    tree(dir, { 'f.txt': 'x' });
    fs.mkdirSync(path.join(dir, 'empty'));
    const r = async (attrs: Record<string, Value>) => (await readData(h, { output_path: s('o.zip'), type: s('zip'), ...attrs })).diagnostics;
    return [
      await r({ source_dir: s('nope') }),
      await r({ source_file: s('nope.txt') }),
      await r({ source_dir: s('f.txt') }),
      await r({ source_dir: s('empty') }),
      await r({ source_file: s('f.txt'), type: s('rar') }),
      await r({ source_file: s('f.txt'), output_file_mode: s('rw-') }),
    ];
  },
  want: [
    ['error: Archive creation error: error creating archive: error archiving directory: could not archive missing directory: nope'],
    ['error: Archive creation error: error creating archive: error archiving file: could not archive missing file: nope.txt'],
    ['error: Archive creation error: error creating archive: error archiving directory: could not archive directory that is a file: f.txt'],
    ['error: Archive creation error: error creating archive: error archiving directory: archive has not been created as it would be empty'],
    ['error: Archive creation error: error creating archive: archive type not supported: rar'],
    ['error: Archive creation error: error creating archive: error parsing output_file_mode value: rw-'],
  ],
});

check({
  scenario: 'archive_file validation: no source is a Missing Attribute Configuration; conflicting sources report ConflictsWith on each attribute.',
  run: async (h) => [
    await validateData(h, { type: s('zip'), output_path: s('o.zip') }),
    await validateData(h, { type: s('zip'), output_path: s('o.zip'), source_file: s('a'), source_dir: s('b') }),
    await h.validate(AF, { type: s('zip'), output_path: s('o.zip'), source_content: s('c'), source_content_filename: s('n'), source: sourceBlocks({ a: 'b' }) }),
  ],
  want: [
    ['error: Missing Attribute Configuration: At least one of these attributes must be configured: [source,source_content_filename,source_file,source_dir]'],
    ['error: Invalid Attribute Combination: Attribute "source_dir" cannot be specified when "source_file" is specified [at .source_file]', 'error: Invalid Attribute Combination: Attribute "source_file" cannot be specified when "source_dir" is specified [at .source_dir]'],
    [
      'error: Invalid Attribute Combination: Attribute "source_content" cannot be specified when "source" is specified [at .source]',
      'error: Invalid Attribute Combination: Attribute "source_content_filename" cannot be specified when "source" is specified [at .source]',
    ],
  ],
});

check({
  scenario: 'The archive_file resource builds at create, plans no change when unchanged, is replaced when a source changes, rebuilds on refresh after the archive was deleted or its sources changed, and has no import.',
  run: async (h, dir) => {
    tree(dir, { 'src/a.txt': 'one' });
    const cfg = { type: s('zip'), source_dir: s('src'), output_path: s('r.zip') };
    const p = await h.plan(AF, null, cfg);
    const { state } = await h.converge(AF, null, cfg);
    const same = await h.plan(AF, state, cfg);
    const changed = await h.plan(AF, state, { ...cfg, output_path: s('r2.zip') });
    fs.rmSync(path.join(dir, 'r.zip'));
    const rebuilt = await h.read(AF, state);
    fs.writeFileSync(path.join(dir, 'src/a.txt'), 'two');
    const drift = await h.read(AF, state);
    return [
      ['id', 'output_sha', 'output_size'].map((k) => at(p.planned, k).isKnown),
      same.requiresReplace,
      changed.requiresReplace,
      fs.existsSync(path.join(dir, 'r.zip')),
      at(rebuilt.state, 'id').str === at(state, 'id').str,
      at(drift.state, 'id').str !== at(state, 'id').str,
      (await h.import(AF, 'r.zip')).diagnostics,
    ];
  },
  want: [[false, false, false], [], ['.output_path'], true, true, true, ['error: Resource Import Not Implemented: This resource does not support import. Please contact the provider developer for additional information.']],
});

check({
  scenario: 'Changing the source blocks of an archive_file resource replaces it; the same blocks in another order do not.',
  run: async (h) => {
    const cfg = { type: s('zip'), output_path: s('b.zip'), source: sourceBlocks({ 'a.txt': 'A', 'b.txt': 'B' }) };
    const { state } = await h.converge(AF, null, cfg);
    const reordered = await h.plan(AF, state, { ...cfg, source: sourceBlocks({ 'b.txt': 'B', 'a.txt': 'A' }) });
    const changed = await h.plan(AF, state, { ...cfg, source: sourceBlocks({ 'a.txt': 'A2', 'b.txt': 'B' }) });
    return [reordered.requiresReplace, changed.requiresReplace, changed.replaced];
  },
  want: [[], ['.source'], true],
});

