// The state renderers (server/command/format/state.ts, server/command/jsonstate.ts) with real provider schemas:
// test/data/cli/render holds a hand-written state of AWS resources (nested blocks, sets of objects, maps, legacy
// empty strings, schema- and state-sensitive attributes, write-only attributes, JSON and multi-line strings, a data
// source), the AWS provider's schemas for those types (`terraform providers schema -json`, descriptions removed)
// and what terraform 1.11.4 printed for `show`, `show -no-color`, `show -json` and `state show -no-color ADDR`.
// `state show` renders only the current object of the instance. Foresight cannot run that provider, so the schemas are fed to the renderers directly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marshalModules, marshalOutputs, marshalState, type SchemaSource } from '../../server/command/jsonstate';
import { renderHumanState } from '../../server/command/format/state';
import type { Attribute, Block, NestedBlock, Schema } from '../../server/providers/schema';
import { typeFromJSON } from '../../server/providers/wire';
import { readStateFile } from '../../server/states/statefile';
import { instanceKeyString, type InstanceAddr } from '../../server/states/state';

const DIR = join(process.cwd(), 'test/data/cli/render');
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

interface JAttr {
  type?: unknown;
  nested_type?: { attributes: Record<string, JAttr>; nesting_mode: string };
  optional?: boolean;
  required?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  write_only?: boolean;
}
interface JBlock {
  attributes?: Record<string, JAttr>;
  block_types?: Record<string, { nesting_mode: string; block: JBlock; min_items?: number; max_items?: number }>;
}

/** jsonprovider's schema form -> the provider schema model. */
function attrFromJSON(a: JAttr): Attribute {
  const base = { optional: a.optional, required: a.required, computed: a.computed, sensitive: a.sensitive, writeOnly: a.write_only };
  if (a.nested_type) {
    const attributes: Record<string, Attribute> = {};
    for (const [k, v] of Object.entries(a.nested_type.attributes)) attributes[k] = attrFromJSON(v);
    return { ...base, nestedType: { nesting: a.nested_type.nesting_mode as 'single', attributes } };
  }
  return { ...base, type: typeFromJSON(a.type) };
}
function blockFromJSON(b: JBlock): Block {
  const attributes: Record<string, Attribute> = {};
  for (const [k, v] of Object.entries(b.attributes ?? {})) attributes[k] = attrFromJSON(v);
  const blockTypes: Record<string, NestedBlock> = {};
  for (const [k, v] of Object.entries(b.block_types ?? {}))
    blockTypes[k] = { nesting: v.nesting_mode as NestedBlock['nesting'], block: blockFromJSON(v.block), minItems: v.min_items, maxItems: v.max_items };
  return { attributes, blockTypes };
}

const raw = JSON.parse(read('aws-schemas.json')) as {
  resource_schemas: Record<string, { version: number; block: JBlock }>;
  data_source_schemas: Record<string, { version: number; block: JBlock }>;
};
const conv = (m: Record<string, { version: number; block: JBlock }>) =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { version: v.version, block: blockFromJSON(v.block) } as Schema]));
const managed = conv(raw.resource_schemas);
const data = conv(raw.data_source_schemas);
const schemas: SchemaSource = (provider, mode, type) =>
  provider === 'registry.terraform.io/hashicorp/aws' ? (mode === 'data' ? data[type] : managed[type]) : undefined;

const file = readStateFile(read('aws.tfstate')).file!;

test('show: human rendering with provider schemas, plain and coloured', () => {
  const root = marshalModules(file.state, schemas);
  const outs = marshalOutputs(file.state);
  assert.equal(renderHumanState(root, outs, false), read('show-no-color.txt'));
  assert.equal(renderHumanState(root, outs, true), read('show.txt'));
});

test('show -json: values decoded with the schemas, sensitive_values, outputs', () => {
  assert.equal(marshalState(file, schemas) + '\n', read('show.json'));
});

const INSTANCES: [string, InstanceAddr][] = [
  ['aws_security_group.web', { module: '', mode: 'managed', type: 'aws_security_group', name: 'web', key: undefined }],
  ['aws_instance.vm0', { module: '', mode: 'managed', type: 'aws_instance', name: 'vm', key: 0 }],
  ['aws_instance.vm1', { module: '', mode: 'managed', type: 'aws_instance', name: 'vm', key: 1 }],
  ['aws_db_instance.db', { module: '', mode: 'managed', type: 'aws_db_instance', name: 'db', key: undefined }],
  ['aws_iam_policy.p', { module: '', mode: 'managed', type: 'aws_iam_policy', name: 'p', key: undefined }],
  ['data.aws_caller_identity.me', { module: '', mode: 'data', type: 'aws_caller_identity', name: 'me', key: undefined }],
];

for (const [name, addr] of INSTANCES) {
  test(`state show ${name}: the instance rendered as a one-resource state`, () => {
    const single = file.state.deepCopy();
    single.outputs.clear();
    for (const [, r] of single.allResources()) {
      for (const k of [...r.instances.keys()]) {
        const same = r.mode === addr.mode && r.type === addr.type && r.name === addr.name && k === instanceKeyString(addr.key);
        if (!same) r.instances.delete(k);
        else r.instances.get(k)!.deposed = new Map();
      }
    }
    assert.equal(renderHumanState(marshalModules(single, schemas), [], false), read(`state-show-${name}.txt`));
  });
}
