// The configuration model: what a Terraform module directory declares, as pure data. Every element keeps
// the source Range it came from. Expressions stay unevaluated (hclbody.ts Expression, holding the parsed
// AST in `ast`; evaluate.ts evaluates them); bodies that need a
// provider schema to decode (resource arguments, backend settings) stay generic Bodies.
// load.ts builds a Module from files; checks.ts runs static checks on it; validate.ts is the entry point.

import type { Range } from '../diags/diagnostic';
import type { Type } from '../lang/types';
import type { Block, Body, Expression } from './hclbody';

export interface RequiredProvider {
  name: string;
  source?: string;
  version?: string;
  range: Range;
}

export interface TerraformBlock {
  requiredVersion?: Expression;
  requiredProviders: RequiredProvider[];
  backend?: { type: string; typeRange: Range; attributes: Map<string, Expression>; range: Range };
  /** Other contents (cloud, experiments, provider_meta), kept generic. */
  other: Block[];
  range: Range;
}

export interface ProviderConfig {
  name: string;
  alias?: string;
  aliasRange?: Range;
  nameRange: Range;
  declRange: Range;
  /** Provider arguments, decoded with the provider's schema later. */
  body: Body;
}

export interface Condition {
  kind: 'precondition' | 'postcondition' | 'validation' | 'assert';
  condition?: Expression;
  errorMessage?: Expression;
  range: Range;
}

export interface Lifecycle {
  createBeforeDestroy?: Expression;
  preventDestroy?: Expression;
  /** Attribute paths written in ignore_changes; `all` when the keyword `all` was used. */
  ignoreChanges?: Expression[] | 'all';
  ignoreAllRange?: Range;
  replaceTriggeredBy?: Expression[];
  preconditions: Condition[];
  postconditions: Condition[];
  range: Range;
}

export interface DynamicBlock {
  /** The label: the type of block it generates. */
  blockType: string;
  iterator?: string;
  forEach?: Expression;
  labels?: Expression;
  content?: Body;
  range: Range;
}

export interface Resource {
  mode: 'managed' | 'data';
  type: string;
  name: string;
  typeRange: Range;
  nameRange: Range;
  /** The block header (`resource "a" "b"`). */
  declRange: Range;
  count?: Expression;
  forEach?: Expression;
  dependsOn?: Expression;
  provider?: { name: string; alias?: string; range: Range };
  lifecycle?: Lifecycle;
  /** Arguments and nested blocks other than meta-arguments (including `dynamic` blocks), for schema decoding. */
  config: Body;
  dynamic: DynamicBlock[];
  file: string;
}

export interface Variable {
  name: string;
  nameRange: Range;
  declRange: Range;
  /** The type constraint (dynamic when absent); `typeExpr` keeps its source. */
  type: Type;
  typeExpr?: Expression;
  default?: Expression;
  description?: string;
  sensitive: boolean;
  nullable: boolean;
  ephemeral: boolean;
  validations: Condition[];
}

export interface Output {
  name: string;
  nameRange: Range;
  declRange: Range;
  value?: Expression;
  description?: string;
  sensitive: boolean;
  ephemeral: boolean;
  dependsOn?: Expression;
  preconditions: Condition[];
}

export interface Local {
  name: string;
  nameRange: Range;
  expr: Expression;
  range: Range;
}

export interface ModuleCall {
  name: string;
  nameRange: Range;
  declRange: Range;
  /** Zero-length range at the opening brace (HCL's MissingItemRange of the block body). */
  missingItemRange?: Range;
  source?: string;
  sourceRange?: Range;
  version?: Expression;
  count?: Expression;
  forEach?: Expression;
  dependsOn?: Expression;
  providers?: Expression;
  /** Input variable arguments, by name. */
  arguments: Map<string, Expression>;
  argumentRanges: Map<string, Range>;
  /** Loaded child module (only for local sources that could be read). */
  module?: Module;
  /** Absolute directory of the child module when the source is local. */
  dir?: string;
}

export interface ImportBlock {
  to?: Expression;
  id?: Expression;
  identity?: Expression;
  forEach?: Expression;
  provider?: Expression;
  range: Range;
}

export interface MovedBlock {
  from?: Expression;
  to?: Expression;
  range: Range;
}

export interface RemovedBlock {
  from?: Expression;
  lifecycle?: Body;
  range: Range;
}

export interface CheckBlock {
  name: string;
  declRange: Range;
  asserts: Condition[];
  data: Resource[];
}

export interface Module {
  /** Absolute directory. */
  dir: string;
  /** "" for the root module, "module.a.module.b" for children. */
  path: string;
  terraform: TerraformBlock[];
  providers: ProviderConfig[];
  resources: Resource[];
  variables: Map<string, Variable>;
  outputs: Map<string, Output>;
  locals: Map<string, Local>;
  moduleCalls: Map<string, ModuleCall>;
  imports: ImportBlock[];
  moved: MovedBlock[];
  removed: RemovedBlock[];
  checks: CheckBlock[];
  /** Files read, in the order Terraform reads them (primary files, then overrides). */
  files: string[];
}

export function resourceKey(r: { mode: 'managed' | 'data'; type: string; name: string }): string {
  return (r.mode === 'data' ? 'data.' : '') + `${r.type}.${r.name}`;
}

/**
 * The module's resources and check-block data sources by resourceKey (the first declared wins), built once per
 * Module object: lookups by address are constant time. A Module is not mutated after loading.
 */
const lookups = new WeakMap<Module, { all: ReadonlyMap<string, Resource>; resources: ReadonlyMap<string, Resource> }>();
export function resourceLookup(mod: Module): { all: ReadonlyMap<string, Resource>; resources: ReadonlyMap<string, Resource> } {
  let l = lookups.get(mod);
  if (!l) {
    const resources = new Map<string, Resource>();
    for (const r of mod.resources) {
      const k = resourceKey(r);
      if (!resources.has(k)) resources.set(k, r);
    }
    l = primeResourceLookup(mod, resources);
  }
  return l;
}

/**
 * Gives resourceLookup the map of `mod.resources` by resourceKey that loading built anyway (its duplicate
 * check keeps the first declared), instead of building it again. `resources` is not changed afterwards.
 */
export function primeResourceLookup(
  mod: Module,
  resources: ReadonlyMap<string, Resource>,
): { all: ReadonlyMap<string, Resource>; resources: ReadonlyMap<string, Resource> } {
  // `resources` itself unless a check block's data source adds to it.
  let own: Map<string, Resource> | undefined;
  for (const c of mod.checks)
    for (const r of c.data) {
      const k = resourceKey(r);
      if ((own ?? resources).has(k)) continue;
      (own ??= new Map(resources)).set(k, r);
    }
  const l = { all: own ?? resources, resources };
  lookups.set(mod, l);
  return l;
}
