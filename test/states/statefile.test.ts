// Round-trip and unit tests of the state file codec (server/states/statefile.ts): state files written by a real
// Terraform 1.11.4 (test/data/states/*.tfstate, recorded by record.sh) and every distinct state of the scenario
// corpus (corpus-states.json, extracted by corpus-states.py) must be read and written back byte for byte.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readStateFile, writeStateFile, goQuote, statesMarshalEqual, newLineage } from '../../server/states/statefile';
import { applyChange, indexStep, attrStep, State, type ObjectSrc } from '../../server/states/state';

const DIR = join(process.cwd(), 'test/data/states');

function roundTrip(text: string): string {
  const r = readStateFile(text);
  assert.deepEqual(r.diags, []);
  assert.ok(r.file);
  return writeStateFile(r.file);
}

for (const f of readdirSync(DIR).filter((f) => /\.tfstate(\.backup)?$/.test(f))) {
  test(`terraform-written ${f} round-trips byte for byte`, () => {
    const text = readFileSync(join(DIR, f), 'utf8');
    assert.equal(roundTrip(text), text);
  });
}

test('scenario corpus states round-trip byte for byte', () => {
  const corpus = JSON.parse(readFileSync(join(DIR, 'corpus-states.json'), 'utf8')) as Record<string, string>;
  assert.ok(Object.keys(corpus).length >= 40);
  for (const [name, text] of Object.entries(corpus)) assert.equal(roundTrip(text), text, name);
});

test('writing restores Terraform order from reversed resources, instances and outputs', () => {
  const corpus = JSON.parse(readFileSync(join(DIR, 'corpus-states.json'), 'utf8')) as Record<string, string>;
  const texts = [...Object.values(corpus), ...['basic', 'modules'].map((n) => readFileSync(join(DIR, `${n}.tfstate`), 'utf8'))];
  for (const text of texts) {
    const doc = JSON.parse(text);
    doc.resources.reverse();
    for (const r of doc.resources) r.instances.reverse();
    doc.outputs = Object.fromEntries(Object.entries(doc.outputs).reverse());
    // JSON.parse loses digits of big numbers; compare only the layout-relevant files without them.
    if (/\d{16,}/.test(text)) continue;
    assert.equal(roundTrip(JSON.stringify(doc)), text);
  }
});

test('a hand-written unsorted state is rewritten exactly as terraform state push rewrote it', () => {
  const pushed = readStateFile(readFileSync(join(DIR, 'configs/deposed/push.json'), 'utf8'));
  assert.deepEqual(pushed.diags, []);
  // state push -force keeps lineage and bumps the serial once; the module resource with a keyed provider
  // address is dropped by Terraform's reader.
  assert.equal(writeStateFile({ ...pushed.file!, serial: pushed.file!.serial + 1 }), readFileSync(join(DIR, 'deposed.tfstate'), 'utf8'));
});

test('provider addresses are normalised as Terraform parses them', async () => {
  const { normalizeProviderConfig: n } = await import('../../server/states/statefile');
  assert.equal(n('provider["registry.terraform.io/hashicorp/aws"].west'), 'provider["registry.terraform.io/hashicorp/aws"].west');
  assert.equal(n('module.a.module.b.provider["hashicorp/aws"]'), 'module.a.module.b.provider["registry.terraform.io/hashicorp/aws"]');
  assert.equal(n('provider.aws.east'), 'provider["registry.terraform.io/-/aws"].east');
  assert.equal(n('module.m["b"].provider["terraform.io/builtin/terraform"]'), undefined);
  assert.equal(n('nonsense'), undefined);
});

test('reading the recorded files gives the model Terraform has', () => {
  const basic = readStateFile(readFileSync(join(DIR, 'basic.tfstate'), 'utf8')).file!;
  assert.equal(basic.terraformVersion, '1.11.4');
  assert.match(basic.lineage, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const counted = basic.state.resource({ module: '', mode: 'managed', type: 'terraform_data', name: 'counted' })!;
  assert.deepEqual([...counted.instances.values()].map((i) => i.key), [0, 1, 2]);
  assert.equal(counted.provider, 'provider["terraform.io/builtin/terraform"]');
  const each = basic.state.instance({ module: '', mode: 'managed', type: 'terraform_data', name: 'each', key: 'a' })!;
  assert.equal(each.current!.createBeforeDestroy, true);
  const sens = basic.state.object({ module: '', mode: 'managed', type: 'terraform_data', name: 'sens', key: undefined })!;
  // Terraform writes sensitive paths in no fixed order (they come from a map); compare as a set.
  const key = (p: readonly unknown[]) => JSON.stringify(p);
  assert.deepEqual(sens.sensitivePaths.map(key).sort(), [
    [attrStep('input'), attrStep('pw')],
    [attrStep('input'), attrStep('list'), indexStep(0)],
  ].map(key).sort());
  assert.equal(basic.state.outputs.get('secret')!.sensitive, true);
  // The 20-digit number keeps its digits.
  assert.match(basic.state.object({ module: '', mode: 'managed', type: 'terraform_data', name: 'single', key: undefined })!.attrsJSON!, /12345678901234567890/);
  const taint = readStateFile(readFileSync(join(DIR, 'taint.tfstate'), 'utf8')).file!;
  assert.equal(taint.state.object({ module: '', mode: 'managed', type: 'terraform_data', name: 't', key: 1 })!.status, 'tainted');
  const mods = readStateFile(readFileSync(join(DIR, 'modules.tfstate'), 'utf8')).file!;
  assert.ok(mods.state.modules.has('module.keyed["with space"].module.grand'));
  assert.ok(mods.state.resource({ module: '', mode: 'data', type: 'terraform_remote_state', name: 'self' }));
  const checks = readStateFile(readFileSync(join(DIR, 'checks.tfstate'), 'utf8')).file!;
  assert.deepEqual(checks.state.checkResults!.map((c) => c.objectKind).sort(), ['check', 'output', 'resource', 'var']);
});

const obj = (attrs: string, extra: Partial<ObjectSrc> = {}): ObjectSrc => ({
  schemaVersion: 0,
  attrsJSON: attrs,
  sensitivePaths: [],
  status: 'ready',
  dependencies: [],
  createBeforeDestroy: false,
  ...extra,
});

test('writing sorts resources and instances as Terraform does and lays out deposed objects', () => {
  const s = new State();
  const p = 'provider["registry.terraform.io/hashicorp/null"]';
  const r = (module: string, mode: 'managed' | 'data', name: string, key?: number | string) => ({ module, mode, type: 'null_resource', name, key });
  applyChange(s, { op: 'current', addr: r('module.b', 'managed', 'x'), provider: p, obj: obj('{}') });
  applyChange(s, { op: 'current', addr: r('', 'managed', 'x', 'b'), provider: p, obj: obj('{"id":"b"}') });
  applyChange(s, { op: 'current', addr: r('', 'managed', 'x', 10), provider: p, obj: obj('{}') });
  applyChange(s, { op: 'current', addr: r('', 'managed', 'x', 2), provider: p, obj: obj('{}') });
  applyChange(s, { op: 'deposed', addr: r('', 'managed', 'x', 2), deposedKey: 'ffff0000', provider: p, obj: obj('{}', { status: 'tainted' }) });
  applyChange(s, { op: 'deposed', addr: r('', 'managed', 'x', 2), deposedKey: '0000ffff', provider: p, obj: obj('{ "a" : [ ] ,"b":{}}', { private: 'eyJ9', dependencies: ['null_resource.y'] }) });
  applyChange(s, { op: 'current', addr: r('', 'data', 'x'), provider: p, obj: obj('{}') });
  const text = writeStateFile({ terraformVersion: '1.11.4', serial: 3, lineage: 'l', state: s });
  const parsed = JSON.parse(text);
  assert.deepEqual(
    parsed.resources.map((x: { module?: string; mode: string }) => `${x.module ?? ''}/${x.mode}`),
    ['/data', '/managed', 'module.b/managed'],
  );
  const inst = parsed.resources[1].instances;
  assert.deepEqual(inst.map((i: { index_key: unknown; deposed?: string }) => [i.index_key, i.deposed ?? '']), [
    [2, ''],
    [2, '0000ffff'],
    [2, 'ffff0000'],
    [10, ''],
    ['b', ''],
  ]);
  assert.ok(text.includes('          "index_key": 2,\n          "deposed": "0000ffff",\n          "schema_version": 0,\n          "attributes": {\n            "a": [],\n            "b": {}\n          },\n          "sensitive_attributes": [],\n          "private": "eyJ9",\n          "dependencies": [\n            "null_resource.y"\n          ]\n        },'));
  assert.ok(text.includes('"index_key": 2,\n          "status": "tainted",\n          "deposed": "ffff0000",'));
  assert.ok(text.endsWith('  "check_results": null\n}\n'));
  assert.deepEqual(readStateFile(text).diags, []);
  assert.equal(writeStateFile(readStateFile(text).file!), text);
});

test('empty state layout, escaping, equality and lineage', () => {
  const text = writeStateFile({ terraformVersion: '1.11.4', serial: 0, lineage: 'x', state: new State() });
  assert.equal(text, '{\n  "version": 4,\n  "terraform_version": "1.11.4",\n  "serial": 0,\n  "lineage": "x",\n  "outputs": {},\n  "resources": [],\n  "check_results": null\n}\n');
  assert.equal(goQuote('a<b>&\u2028\n\b\u0001"\\'), '"a\\u003cb\\u003e\\u0026\\u2028\\n\\b\\u0001\\"\\\\"');
  const a = new State();
  const b = new State();
  assert.ok(statesMarshalEqual(a, b));
  a.outputs.set('o', { valueJSON: '"x"', typeJSON: '"string"', sensitive: false });
  assert.ok(!statesMarshalEqual(a, b));
  assert.match(newLineage(() => new Uint8Array(16).fill(0xab)), /^abababab-abab-abab-abab-abababababab$/);
});

test('attributes keep their text through writing: escapes, number spellings, key order, empty collections', () => {
  // Texts the native serialiser cannot reproduce (Go's escapes, 1.50, digit keys first in source order) and one
  // it can must come out exactly as Go's json.Indent lays them out.
  const layout = (attrsJSON: string) => {
    const s = new State();
    applyChange(s, { op: 'current', addr: { module: '', mode: 'managed', type: 't', name: 'n', key: undefined }, provider: 'provider["registry.terraform.io/hashicorp/t"]', obj: { schemaVersion: 0, attrsJSON, sensitivePaths: [], status: 'ready', dependencies: [], createBeforeDestroy: false } });
    const text = writeStateFile({ terraformVersion: '1.11.4', serial: 1, lineage: 'x', state: s });
    return text.slice(text.indexOf('"attributes"'), text.indexOf('"sensitive_attributes"')).trimEnd();
  };
  const tail = (lines: string[]) => ['"attributes": {', ...lines.map((l) => '            ' + l), '          },'].join('\n');
  assert.equal(layout('{"a": "<b>&", "n": 1.50, "m": {"10": 1, "2": [2.0e1]}, "e": [], "o": {}}'), tail(['"a": "\\u003cb\\u003e\\u0026",', '"n": 1.50,', '"m": {', '  "10": 1,', '  "2": [', '    2.0e1', '  ]', '},', '"e": [],', '"o": {}']));
  assert.equal(layout('{"a":"b","l":[{"x":null,"y":true}],"e":[]}'), tail(['"a": "b",', '"l": [', '  {', '    "x": null,', '    "y": true', '  }', '],', '"e": []']));
});

test('read errors and special inputs', () => {
  assert.deepEqual(readStateFile(''), { diags: [] });
  assert.deepEqual(readStateFile('  \n'), { diags: [] });
  assert.equal(readStateFile('{"version": 5}').diags[0].summary, 'Unsupported state file format');
  assert.match(readStateFile('{"version": 5}').diags[0].detail!, /format version 5, which is not supported by Terraform 1\.11\.4/);
  // Terraform's statefile.Read diagnostics (sniffJSONStateVersion), exactly.
  const noVersion = { summary: 'Unsupported state file format', detail: 'The state file does not have a "version" attribute, which is required to identify the format version.' };
  assert.deepEqual(readStateFile('{}').diags.map((d) => ({ summary: d.summary, detail: d.detail })), [noVersion]);
  assert.deepEqual(readStateFile('{"version": 4').diags.map((d) => ({ summary: d.summary, detail: d.detail })), [
    { summary: 'Unsupported state file format', detail: 'The state file could not be parsed as JSON: syntax error at byte offset 13.' },
    noVersion,
  ]);
  const dup = JSON.stringify({
    version: 4,
    serial: 1,
    lineage: 'x',
    resources: [{ mode: 'managed', type: 't', name: 'n', provider: 'provider["registry.terraform.io/hashicorp/t"]', instances: [{ schema_version: 0, attributes: {} }, { schema_version: 0, attributes: {} }] }],
  });
  assert.equal(readStateFile(dup).diags[0].detail, 'Instance t.n appears multiple times in the state file.');
  const badMode = JSON.stringify({ version: 4, resources: [{ mode: 'x', type: 't', name: 'n', instances: [] }] });
  assert.equal(readStateFile(badMode).diags[0].summary, 'Invalid resource mode in state');
});

test('the fast lane for valid format 4 documents reads exactly what the general parser reads', () => {
  const same = (text: string, name: string) => {
    const fast = readStateFile(text);
    const general = readStateFile(text, { generalParser: true });
    assert.deepEqual(fast, general, name);
    if (general.file) assert.equal(writeStateFile(fast.file!), writeStateFile(general.file), name);
  };
  const corpus = JSON.parse(readFileSync(join(DIR, 'corpus-states.json'), 'utf8')) as Record<string, string>;
  for (const [name, text] of Object.entries(corpus)) same(text, name);
  for (const f of readdirSync(DIR).filter((f) => /\.tfstate(\.backup)?$/.test(f))) same(readFileSync(join(DIR, f), 'utf8'), f);
  const inst = (extra: string) =>
    `{"version":4,"serial":3,"lineage":"l","outputs":{},"resources":[{"mode":"managed","type":"t","name":"n","provider":"provider[\\"registry.terraform.io/hashicorp/t\\"]","instances":[{"schema_version":0,"attributes":{"id":"a","attributes":{"outputs":1}},"sensitive_attributes":[]${extra}}]}]}`;
  const cases: [string, string][] = [
    ['plain', inst('')],
    ['numbers kept as written', inst('').replace('"id":"a"', '"id":"a","n":12345678901234567890123,"f":1.50')],
    ['serial written as a decimal', inst('').replace('"serial":3', '"serial":3.0')],
    ['serial beyond 2^53', inst('').replace('"serial":3', '"serial":18446744073709551615')],
    ['version written as 4.0', inst('').replace('"version":4', '"version":4.0')],
    ['duplicate attributes key', inst(',"attributes":{"id":"b"}')],
    ['duplicate outputs key', inst('').replace('"outputs":{}', '"outputs":{},"outputs":{"o":{"value":1,"type":"number"}}')],
    ['keys named attributes inside an output value', inst('').replace('"outputs":{}', '"outputs":{"o":{"value":{"attributes":{"x":1}},"type":["object",{"attributes":["object",{"x":"number"}]}]}}')],
    ['a key ending in an escaped quote before "attributes"', inst(',"x\\"attributes":1')],
    ['an unknown instance key', inst(',"identity":{"attributes":{}}')],
    ['a case-folded key', inst(',"Private":"eA=="')],
    ['a sensitive path with an index step', inst('').replace('"sensitive_attributes":[]', '"sensitive_attributes":[[{"type":"get_attr","value":"m"},{"type":"index","value":{"value":"k","type":"string"}}]]')],
    ['null attributes', inst('').replace(/"attributes":\{"id".*?\}\}/, '"attributes":null')],
    ['flat attributes', inst('').replace(/"attributes":\{"id".*?\}\}/, '"attributes_flat":{"id":"a","tags.%":"0"}')],
    ['invalid index key', inst(',"index_key":true')],
    ['check results', inst('').replace('"outputs":{}', '"outputs":{},"check_results":[{"object_kind":"resource","config_addr":"t.n","status":"pass","objects":[{"object_addr":"t.n","status":"pass"}]}]')],
  ];
  for (const [name, text] of cases) {
    JSON.parse(text);
    same(text, name);
  }
});

test('format 3 states are upgraded', () => {
  const v3 = JSON.stringify({
    version: 3,
    terraform_version: '0.11.14',
    serial: 5,
    lineage: 'abc',
    modules: [
      {
        path: ['root'],
        outputs: { ip: { sensitive: false, type: 'string', value: '1.2.3.4' } },
        resources: {
          'aws_instance.web.1': { type: 'aws_instance', depends_on: ['aws_vpc.main'], primary: { id: 'i-1', attributes: { id: 'i-1', ami: 'x' }, meta: { schema_version: '1' }, tainted: true }, deposed: [], provider: 'provider.aws' },
          'data.aws_ami.a': { type: 'aws_ami', primary: { id: 'ami', attributes: { id: 'ami' } }, provider: 'provider.aws.west' },
        },
      },
      { path: ['root', 'child'], outputs: {}, resources: { 'null_resource.n': { type: 'null_resource', primary: { id: '1', attributes: { id: '1' } }, provider: 'module.child.provider.null' } } },
    ],
  });
  const r = readStateFile(v3);
  assert.deepEqual(r.diags, []);
  const s = r.file!.state;
  assert.equal(r.file!.serial, 5);
  const web = s.object({ module: '', mode: 'managed', type: 'aws_instance', name: 'web', key: 1 })!;
  assert.deepEqual(web.attrsFlat, { id: 'i-1', ami: 'x' });
  assert.equal(web.status, 'tainted');
  assert.equal(web.schemaVersion, 1);
  assert.deepEqual(web.dependencies, ['aws_vpc.main']);
  assert.equal(s.resource({ module: '', mode: 'data', type: 'aws_ami', name: 'a' })!.provider, 'provider["registry.terraform.io/-/aws"].west');
  assert.equal(s.resource({ module: 'module.child', mode: 'managed', type: 'null_resource', name: 'n' })!.provider, 'module.child.provider["registry.terraform.io/-/null"]');
  assert.equal(s.outputs.get('ip')!.valueJSON, '"1.2.3.4"');
  const out = writeStateFile(r.file!);
  assert.ok(out.includes('"attributes_flat": {\n            "ami": "x",\n            "id": "i-1"\n          },'));
});
