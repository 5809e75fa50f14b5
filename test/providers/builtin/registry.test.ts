// Tests for the registry of built-in providers (server/providers/builtin/index.ts): the addresses and versions
// (which init and the lock file use through server/providers/resolve.ts), every provider starts and
// answers GetProviderSchema through the loopback with well-formed schemas, unknown addresses are refused, and
// the crash guard keeps a provider's failures inside diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_PROVIDERS, findBuiltinProvider, guardProvider, startBuiltinProvider } from '../../../server/providers/builtin';
import type { Block } from '../../../server/providers/schema';
import { Value } from '../../../server/lang/value';
import { loopbackProvider } from '../../../server/providers/wire';
import { misbehavingProvider } from './misbehaving';

/** Every attribute of a block and its nested blocks has a type and at least one of required/optional/computed. */
function malformed(b: Block, at = ''): string[] {
  const out: string[] = [];
  for (const [k, a] of Object.entries(b.attributes)) {
    if (!a.type && !a.nestedType) out.push(`${at}${k}: no type`);
    if (!a.required && !a.optional && !a.computed) out.push(`${at}${k}: no mode`);
    if (a.required && (a.optional || a.computed)) out.push(`${at}${k}: required with optional/computed`);
  }
  for (const [k, nb] of Object.entries(b.blockTypes)) out.push(...malformed(nb.block, `${at}${k}.`));
  return out;
}

interface Case {
  scenario: string;
  run: () => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => assert.deepEqual(await c.run(), c.want));
}

check({
  scenario: 'The registry lists every built-in provider (terraform, null, random, local, time, tls, http, archive) with its local name and version.',
  run: async () => {
    return BUILTIN_PROVIDERS.map((p) => `${p.address}@${p.version} (${p.name})`).sort();
  },
  want: [
    'registry.terraform.io/hashicorp/archive@2.7.1 (archive)',
    'registry.terraform.io/hashicorp/http@3.5.0 (http)',
    'registry.terraform.io/hashicorp/local@2.5.3 (local)',
    'registry.terraform.io/hashicorp/null@3.2.4 (null)',
    'registry.terraform.io/hashicorp/random@3.7.2 (random)',
    'registry.terraform.io/hashicorp/time@0.12.1 (time)',
    'registry.terraform.io/hashicorp/tls@4.0.6 (tls)',
    'terraform.io/builtin/terraform@ (terraform)',
  ],
});

check({
  scenario: 'Every built-in provider starts, answers GetProviderSchema through the loopback without diagnostics, and declares well-formed schemas.',
  run: async () => {
    const out: Record<string, string[]> = {};
    for (const bp of BUILTIN_PROVIDERS) {
      const p = loopbackProvider(startBuiltinProvider(bp.address)!);
      const s = await p.getProviderSchema();
      const problems = [...s.diagnostics.map((d) => d.summary)];
      for (const [t, sc] of [...Object.entries(s.resourceTypes), ...Object.entries(s.dataSources)]) {
        // Terraform implies a provider from the type's prefix up to the first underscore, or the whole name
        // when it has none (data "http" belongs to provider "http").
        if (t !== bp.name && !t.startsWith(bp.name + '_')) problems.push(`${t}: wrong prefix`);
        problems.push(...malformed(sc.block).map((m) => `${t}.${m}`));
      }
      out[bp.name] = problems;
      await p.close();
    }
    return out;
  },
  want: { terraform: [], null: [], random: [], local: [], time: [], tls: [], http: [], archive: [] },
});

check({
  scenario: 'An address Foresight does not have gives no provider.',
  run: async () => [findBuiltinProvider('registry.terraform.io/hashicorp/aws'), startBuiltinProvider('registry.terraform.io/hashicorp/aws')],
  want: [undefined, undefined],
});

check({
  scenario: 'The crash guard answers a throwing method with "Plugin did not respond" naming the RPC, and a failing close is swallowed.',
  run: async () => {
    const inner = misbehavingProvider();
    const p = guardProvider({ ...inner, validateResourceConfig: async () => Promise.reject(new Error('boom')), close: async () => Promise.reject(new Error('x')) });
    const r = await p.validateResourceConfig({ typeName: 'mis_ok', config: Value.object({}), clientCapabilities: { deferralAllowed: false, writeOnlyAttributesAllowed: true } });
    await p.close();
    return r.diagnostics.map((d) => `${d.summary}: ${d.detail}`);
  },
  want: ['Plugin did not respond: The plugin encountered an error, and failed to respond to the plugin.(*GRPCProvider).ValidateResourceConfig call. The plugin logs may contain more details.'],
});
