// Provider schemas for the editing features, asked through the provider interface (GetProviderSchema) of
// the providers Foresight carries (server/providers/builtin), once per server, then looked up by resource
// type, data source type or provider local name. A resource type belongs to the provider whose local name
// is its prefix (`random_string` → random), as Terraform implies it when `provider =` is absent.

import { BUILTIN_PROVIDERS, startBuiltinProvider } from '../../providers/builtin/index';
import type { Attribute, Block, NestedBlock, Schema } from '../../providers/schema';

export interface ProviderSchemas {
  /** Provider local name → its schemas. */
  providers: Map<string, { address: string; provider: Schema; resources: Record<string, Schema>; dataSources: Record<string, Schema> }>;
  resources: Map<string, { schema: Schema; provider: string }>;
  dataSources: Map<string, { schema: Schema; provider: string }>;
}

let loaded: Promise<ProviderSchemas> | undefined;
let ready: ProviderSchemas | undefined;

/** The schemas when already loaded (handlers then answer without yielding to queued work), else undefined. */
export function loadedSchemas(): ProviderSchemas | undefined {
  return ready;
}

export function providerSchemas(): Promise<ProviderSchemas> {
  loaded ??= (async () => {
    const out: ProviderSchemas = { providers: new Map(), resources: new Map(), dataSources: new Map() };
    for (const p of BUILTIN_PROVIDERS) {
      const inst = startBuiltinProvider(p.address);
      if (!inst) continue;
      try {
        const r = await inst.getProviderSchema();
        if (r.diagnostics?.some((d) => d.severity === 'error')) continue;
        out.providers.set(p.name, { address: p.address, provider: r.provider, resources: r.resourceTypes, dataSources: r.dataSources });
        for (const [k, s] of Object.entries(r.resourceTypes)) out.resources.set(k, { schema: s, provider: p.name });
        for (const [k, s] of Object.entries(r.dataSources)) out.dataSources.set(k, { schema: s, provider: p.name });
      } finally {
        await inst.close();
      }
    }
    ready = out;
    return out;
  })();
  return loaded;
}

/** The schema of the body of a top-level block with these labels (resource/data/provider), if known. */
export function topLevelSchema(s: ProviderSchemas, type: string, labels: readonly string[]): Block | undefined {
  if (type === 'resource') return s.resources.get(labels[0] ?? '')?.schema.block;
  if (type === 'data') return s.dataSources.get(labels[0] ?? '')?.schema.block;
  if (type === 'provider') return s.providers.get(labels[0] ?? '')?.provider.block;
  return undefined;
}

/** Descends from a schema block through nested block type names (a `dynamic "x"` uses x; `content` is transparent). */
export function descend(block: Block | undefined, path: readonly { type: string; labels: readonly string[] }[]): Block | undefined {
  let b = block;
  for (let i = 0; i < path.length && b; i++) {
    const step = path[i];
    if (step.type === 'dynamic') {
      const nb = b.blockTypes[step.labels[0] ?? ''];
      b = nb?.block;
      if (path[i + 1]?.type === 'content') i++;
      continue;
    }
    b = b.blockTypes[step.type]?.block;
  }
  return b;
}

export function attributeDoc(a: Attribute): string {
  return a.description ?? '';
}

/** "required", "optional", "computed", "optional, computed" ... as terraform-ls shows it. */
export function attributeFlags(a: Attribute): string {
  const f: string[] = [];
  if (a.required) f.push('required');
  if (a.optional) f.push('optional');
  if (a.computed && !a.optional && !a.required) f.push('computed');
  if (a.sensitive) f.push('sensitive');
  if (a.deprecated) f.push('deprecated');
  return f.join(', ');
}

export function nestedBlockFlags(nb: NestedBlock): string {
  const f: string[] = [nb.nesting];
  if ((nb.minItems ?? 0) > 0) f.push('required');
  return f.join(', ');
}

/**
 * The values an attribute's description lists as allowed (`Allowed methods are `GET`, `HEAD`, and `POST`.`,
 * `Valid values are `a` and `b``), for enum-like completion. Providers' wire schemas carry no validators,
 * so the description is where the schema says it.
 */
export function enumValues(a: Attribute): string[] {
  const d = a.description ?? '';
  const m = d.match(/(?:allowed|valid|supported|accepted|possible)\s+(?:\w+\s+)?(?:values?|methods?|options?|types?)\s+(?:are|is|include)\b([^.]*(?:\.[^\s.][^.]*)*)/i) ?? d.match(/\b(?:one of)\b:?([^.]*)/i);
  if (!m) return [];
  const vals = [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]);
  return vals.length >= 2 ? [...new Set(vals)] : [];
}

/** The attribute that replaces a deprecated one, when its description or deprecation note names it. */
export function deprecatedReplacement(a: Attribute, siblings: Readonly<Record<string, Attribute>>): string | undefined {
  if (!a.deprecated) return undefined;
  const d = a.description ?? '';
  const m = d.match(/\buse\s+`?([A-Za-z_][\w-]*)`?\s+instead\b/i);
  if (!m || !(m[1] in siblings) || siblings[m[1]].deprecated) return undefined;
  return m[1];
}
