// Benchmark of calls through the provider interface: ValidateResourceConfig and PlanResourceChange of the
// built-in random provider's random_string, in-process and through the JSON wire form (loopbackProvider, what
// an out-of-process transport must at least pay). `benchProviderCalls` returns calls per second of each;
// test/bench/bench.ts prints them.

import { DEFAULT_CLIENT_CAPABILITIES, type Provider } from '../../server/providers/provider';
import { startBuiltinProvider } from '../../server/providers/builtin';
import { emptyValue, nullObject } from '../../server/providers/schema';
import { proposedNew } from '../../server/plans/objchange/proposed';
import { Value } from '../../server/lang/value';
import { loopbackProvider } from '../../server/providers/wire';

const RANDOM = 'registry.terraform.io/hashicorp/random';

export interface ProviderCallRates {
  validatePerSec: number;
  planPerSec: number;
  wireValidatePerSec: number;
  wirePlanPerSec: number;
}

async function rates(p: Provider, calls: number): Promise<{ validate: number; plan: number }> {
  const schema = (await p.getProviderSchema()).resourceTypes['random_string'];
  await p.configureProvider({ terraformVersion: '1.11.4', config: emptyValue((await p.getProviderSchema()).provider.block), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  const b = schema.block;
  const base = emptyValue(b);
  const attrs = new Map(base.entries);
  attrs.set('length', Value.number(16));
  attrs.set('special', Value.bool(false));
  const config = Value.object(attrs);
  const prior = nullObject(b);
  const proposed = proposedNew(b, prior, config);
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const r = await p.validateResourceConfig({ typeName: 'random_string', config, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    if (r.diagnostics.length) throw new Error(`unexpected diagnostics: ${r.diagnostics[0].summary}`);
  }
  const t1 = performance.now();
  for (let i = 0; i < calls; i++) {
    const r = await p.planResourceChange({
      typeName: 'random_string',
      priorState: prior,
      proposedNewState: proposed,
      config,
      priorPrivate: new Uint8Array(0),
      clientCapabilities: DEFAULT_CLIENT_CAPABILITIES,
    });
    if (r.diagnostics.length) throw new Error(`unexpected diagnostics: ${r.diagnostics[0].summary}`);
  }
  const t2 = performance.now();
  return { validate: (calls * 1000) / (t1 - t0), plan: (calls * 1000) / (t2 - t1) };
}

export async function benchProviderCalls(calls = 5000): Promise<ProviderCallRates> {
  const direct = await rates(startBuiltinProvider(RANDOM)!, calls);
  const wire = await rates(loopbackProvider(startBuiltinProvider(RANDOM)!), calls);
  return { validatePerSec: direct.validate, planPerSec: direct.plan, wireValidatePerSec: wire.validate, wirePlanPerSec: wire.plan };
}
