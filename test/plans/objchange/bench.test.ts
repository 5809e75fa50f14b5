// Checks that the objchange micro-benchmark (test/bench/objchange-bench.ts) measures what it claims: its
// fixture conforms to the schema, the proposed value is a valid plan, and the benchmark runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchObjchange, objchangeBenchFixture } from '../../bench/objchange-bench';
import { proposedNew } from '../../../server/plans/objchange/proposed';
import { assertPlanValid } from '../../../server/plans/objchange/valid';
import { valueConformsToSchema } from '../../../server/plans/objchange/conformance';
import { formatError } from '../../../server/providers/path';

test('The benchmark fixture conforms to its 200-attribute, three-level schema and its proposed value is a valid plan that keeps prior computed values.', () => {
  const { schema, prior, config } = objchangeBenchFixture();
  assert.equal(Object.keys(schema.attributes).length, 200);
  assert.deepEqual(valueConformsToSchema(schema, prior).map(formatError), []);
  assert.deepEqual(valueConformsToSchema(schema, config).map(formatError), []);
  const planned = proposedNew(schema, prior, config);
  assert.deepEqual(assertPlanValid(schema, prior, config, planned).map(formatError), []);
  assert.equal(planned.entries.get('attr2')!.str, prior.entries.get('attr2')!.str);
  const rule = planned.entries.get('disk')!.elems[0].entries.get('rule')!;
  assert.equal(rule.elems.length, 2);
});

test('The benchmark returns positive per-call timings.', () => {
  const r = benchObjchange(20);
  assert.ok(r.proposedNewMs > 0 && r.planValidMs > 0, JSON.stringify(r));
});
