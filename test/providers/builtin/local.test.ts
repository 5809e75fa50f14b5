// Tests for the built-in local provider (server/providers/builtin/local.ts) through the loopback: local_file and
// local_sensitive_file create, no-op and replacing plans, refresh after the file was changed or deleted outside
// Terraform, destroy, the missing import, validation messages of hashicorp/local 2.5.3, and the local_file /
// local_sensitive_file data sources. Each test works in its own temporary directory, removed afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { LOCAL_PROVIDER_ADDRESS } from '../../../server/providers/builtin/local';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../../server/providers/provider';
import { objectFor } from '../../../server/providers/sdk';
import { valueConformsToSchema } from '../../../server/plans/objchange/conformance';
import { formatError } from '../../../server/providers/path';
import { Harness, at, diagText } from './_harness';

const s = (x: string) => Value.string(x);
const LF = 'local_file';
const LSF = 'local_sensitive_file';

interface Case {
  scenario: string;
  run: (h: Harness, dir: string) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-local-'));
    try {
      assert.deepEqual(await c.run(new Harness(LOCAL_PROVIDER_ADDRESS, { workingDir: dir }), dir), c.want);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
/**
 * Reads a data source whose type name is also a resource type (the harness looks resource schemas up first):
 * the configuration is built with the data source's own schema and the answer checked against it.
 */
async function readData(h: Harness, type: string, attrs: Record<string, Value>): Promise<{ state: Value; diagnostics: string[] }> {
  const block = (await h.p.getProviderSchema()).dataSources[type].block;
  const r = await h.p.readDataSource({ typeName: type, config: objectFor(block, attrs), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  const diagnostics = r.diagnostics.map(diagText);
  if (!r.diagnostics.some((d) => d.severity === 'error')) {
    assert.deepEqual(valueConformsToSchema(block, r.state).map(formatError), []);
    assert.ok(r.state.isWhollyKnown);
  }
  return { state: r.state, diagnostics };
}
const sha1 = (b: string | Buffer) => createHash('sha1').update(b).digest('hex');

check({
  scenario: 'Creating a local_file plans default permissions and unknown checksums, then writes the content (creating parent directories) and records its SHA-1 as id.',
  run: async (h, dir) => {
    const cfg = { filename: s('sub/dir/out.txt'), content: s('hello\n') };
    const p = await h.plan(LF, null, cfg);
    const a = await h.apply(LF, null, p.planned, cfg);
    const mode = fs.statSync(path.join(dir, 'sub/dir/out.txt')).mode & 0o777;
    return [
      goString(at(p.planned, 'file_permission')),
      goString(at(p.planned, 'directory_permission')),
      goString(at(p.planned, 'id')),
      goString(at(p.planned, 'content_sha256')),
      fs.readFileSync(path.join(dir, 'sub/dir/out.txt'), 'utf8'),
      at(a.state, 'id').str === sha1('hello\n'),
      at(a.state, 'content_sha1').str === sha1('hello\n'),
      at(a.state, 'content_md5').str,
      at(a.state, 'content_base64sha256').str,
      (mode & ~(0o777 & ~process.umask())) === 0,
    ];
  },
  want: [
    'cty.StringVal("0777")',
    'cty.StringVal("0777")',
    'cty.UnknownVal(cty.String)',
    'cty.UnknownVal(cty.String)',
    'hello\n',
    true,
    true,
    'b1946ac92492d2347c6235b4d2611184',
    'WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=',
    true,
  ],
});

check({
  scenario: 'An unchanged local_file plans its prior state; changing content or file_permission requires replacement and writes the new content.',
  run: async (h, dir) => {
    const { state } = await h.converge(LF, null, { filename: s('a.txt'), content: s('one') });
    const same = await h.plan(LF, state, { filename: s('a.txt'), content: s('one') });
    const perm = await h.plan(LF, state, { filename: s('a.txt'), content: s('one'), file_permission: s('0600') });
    const { state: next, plan } = await h.converge(LF, state, { filename: s('a.txt'), content: s('two') });
    return [goString(same.planned) === goString(state), same.requiresReplace, perm.requiresReplace, plan.requiresReplace, plan.replaced, fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), at(next, 'id').str === sha1('two')];
  },
  want: [true, [], ['.file_permission'], ['.content'], true, 'two', true],
});

check({
  scenario: 'Refreshing a local_file keeps it while the file is unchanged and drops it from the state when the file was edited or deleted outside Terraform (a dangling symlink counts as deleted).',
  run: async (h, dir) => {
    const { state } = await h.converge(LF, null, { filename: s('d.txt'), content: s('orig') });
    const kept = await h.read(LF, state);
    fs.writeFileSync(path.join(dir, 'd.txt'), 'edited');
    const edited = await h.read(LF, state);
    fs.rmSync(path.join(dir, 'd.txt'));
    const gone = await h.read(LF, state);
    fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'd.txt'));
    const dangling = await h.read(LF, state);
    return [goString(kept.state) === goString(state), kept.diagnostics, edited.state.isNull, gone.state.isNull, gone.diagnostics, dangling.state.isNull, dangling.diagnostics];
  },
  want: [true, [], true, true, [], true, []],
});

check({
  scenario: 'Destroying a local_file removes the file, and destroying one whose file is already gone succeeds; import is not implemented.',
  run: async (h, dir) => {
    const { state } = await h.converge(LF, null, { filename: s('x.txt'), content: s('x') });
    const d1 = await h.apply(LF, state, Value.null(state.type), {});
    const d2 = await h.apply(LF, state, Value.null(state.type), {});
    const imp = await h.import(LF, 'x.txt');
    return [fs.existsSync(path.join(dir, 'x.txt')), d1.diagnostics, d2.diagnostics, d1.state.isNull, imp.diagnostics];
  },
  want: [false, [], [], true, ['error: Resource Import Not Implemented: This resource does not support import. Please contact the provider developer for additional information.']],
});

check({
  scenario: 'local_file accepts content_base64 and source, writing the decoded bytes or the source file\'s bytes; bad base64 and a missing source fail at apply.',
  run: async (h, dir) => {
    const { state: b } = await h.converge(LF, null, { filename: s('b.bin'), content_base64: s('AAEC/w==') });
    fs.writeFileSync(path.join(dir, 'src.txt'), 'from source');
    const { state: c } = await h.converge(LF, null, { filename: s('c.txt'), source: s('src.txt') });
    const bad = await h.plan(LF, null, { filename: s('e.txt'), content_base64: s('!!!') });
    const badApply = await h.apply(LF, null, bad.planned, { filename: s('e.txt'), content_base64: s('!!!') });
    const miss = await h.plan(LF, null, { filename: s('f.txt'), source: s('nope.txt') });
    const missApply = await h.apply(LF, null, miss.planned, { filename: s('f.txt'), source: s('nope.txt') });
    return [
      [...fs.readFileSync(path.join(dir, 'b.bin'))],
      at(b, 'id').str === sha1(Buffer.from([0, 1, 2, 255])),
      fs.readFileSync(path.join(dir, 'c.txt'), 'utf8'),
      at(c, 'id').str === sha1('from source'),
      badApply.diagnostics,
      missApply.diagnostics,
    ];
  },
  want: [
    [0, 1, 2, 255],
    true,
    'from source',
    true,
    ['error: Create local file error: An unexpected error occurred while parsing local file content\n\n+Original Error: illegal base64 data at input byte 0'],
    ['error: Create local file error: An unexpected error occurred while parsing local file content\n\n+Original Error: open nope.txt: no such file or directory'],
  ],
});

check({
  scenario: 'local_file validation: no content argument or two of them give the ExactlyOneOf message on each argument (listing the other arguments); sensitive_content is deprecated; permissions must be 3-4 octal digits.',
  run: async (h) => [
    await h.validate(LF, { filename: s('f') }),
    await h.validate(LF, { filename: s('f'), content: s('a'), source: s('b') }),
    await h.validate(LF, { filename: s('f'), sensitive_content: s('a') }),
    await h.validate(LF, { filename: s('f'), content: s('a'), file_permission: s('77'), directory_permission: s('0888') }),
    await h.validate(LF, { filename: s('f'), content: Value.unknown(Value.string('').type) }),
  ],
  want: [
    [
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [sensitive_content,content_base64,source] is required [at .content]',
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [content,sensitive_content,source] is required [at .content_base64]',
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [content,sensitive_content,content_base64] is required [at .source]',
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [content,content_base64,source] is required [at .sensitive_content]',
    ],
    [
      'error: Invalid Attribute Combination: 2 attributes specified when one (and only one) of [sensitive_content,content_base64,source] is required [at .content]',
      'error: Invalid Attribute Combination: 2 attributes specified when one (and only one) of [content,sensitive_content,source] is required [at .content_base64]',
      'error: Invalid Attribute Combination: 2 attributes specified when one (and only one) of [content,sensitive_content,content_base64] is required [at .source]',
      'error: Invalid Attribute Combination: 2 attributes specified when one (and only one) of [content,content_base64,source] is required [at .sensitive_content]',
    ],
    ['warning: Attribute Deprecated: Use the `local_sensitive_file` resource instead [at .sensitive_content]'],
    [
      'error: Invalid File Permission String Value: bad mode permission: string length should be 3 or 4 digits: 77 [at .file_permission]',
      'error: Invalid File Permission String Value: bad mode permission: string must be expressed in octal numeric notation: 0888 [at .directory_permission]',
    ],
    [],
  ],
});

check({
  scenario: 'local_sensitive_file marks content sensitive, defaults permissions to 0700 and has no sensitive_content argument.',
  run: async (h, dir) => {
    const blk = await h.block(LSF);
    const { state } = await h.converge(LSF, null, { filename: s('secret.txt'), content: s('pw') });
    const mode = fs.statSync(path.join(dir, 'secret.txt')).mode & 0o777;
    return [blk.attributes.content.sensitive, blk.attributes.content_base64.sensitive, 'sensitive_content' in blk.attributes, at(state, 'file_permission').str, mode & 0o077, await h.validate(LSF, { filename: s('f') })];
  },
  want: [
    true,
    true,
    false,
    '0700',
    0,
    [
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [content_base64,source] is required [at .content]',
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [content,source] is required [at .content_base64]',
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [content,content_base64] is required [at .source]',
    ],
  ],
});

check({
  scenario: 'The local_file data source reads content, base64 and checksums (invalid UTF-8 replaced); the sensitive variant marks content sensitive; a missing file is an error.',
  run: async (h, dir) => {
    fs.writeFileSync(path.join(dir, 'in.bin'), Buffer.from([0x68, 0x69, 0xff]));
    const r = await readData(h, LF, { filename: s('in.bin') });
    const sens = (await h.p.getProviderSchema()).dataSources[LSF].block.attributes.content.sensitive;
    const rs = await readData(h, LSF, { filename: s('in.bin') });
    const miss = await readData(h, LF, { filename: s('none.txt') });
    return [at(r.state, 'content').str, at(r.state, 'content_base64').str, at(r.state, 'id').str === sha1(Buffer.from([0x68, 0x69, 0xff])), sens, goString(at(rs.state, 'id')) === goString(at(r.state, 'id')), miss.diagnostics];
  },
  want: [
    'hi\uFFFD',
    'aGn/',
    true,
    true,
    true,
    ['error: Read local file data source error: The file at given path cannot be read.\n\n+Original Error: open none.txt: no such file or directory'],
  ],
});
