// Provider source addresses (Terraform's addrs.Provider / terraform-registry-address): parsing the
// `source` strings of required_providers ("[hostname/][namespace/]type") with Terraform's error summaries
// and details, normalisation (lower case), implied providers for unqualified names ("terraform" is the
// built-in terraform.io/builtin/terraform, every other name hashicorp/<name> on registry.terraform.io),
// display forms (String: always fully qualified; ForDisplay: the default registry host omitted) and the
// ordering Terraform sorts by. Contract: parse never throws; errors are { summary, detail } for the caller
// to attach a source range.

export const DEFAULT_REGISTRY_HOST = 'registry.terraform.io';
export const BUILTIN_HOST = 'terraform.io';
export const BUILTIN_NAMESPACE = 'builtin';
export const LEGACY_NAMESPACE = '-';
/** The namespace of an address given as a bare type name before it is resolved (tfaddr's "?"). */
export const UNKNOWN_NAMESPACE = '?';

export interface ProviderAddr {
  hostname: string;
  namespace: string;
  type: string;
}

export interface AddrError {
  summary: string;
  detail: string;
}

/** Fully qualified: "registry.terraform.io/hashicorp/random". */
export function providerString(p: ProviderAddr): string {
  return `${p.hostname}/${p.namespace}/${p.type}`;
}

/** For messages: the default registry host is omitted ("hashicorp/random"). */
export function providerForDisplay(p: ProviderAddr): string {
  return p.hostname === DEFAULT_REGISTRY_HOST ? `${p.namespace}/${p.type}` : providerString(p);
}

export function isBuiltIn(p: ProviderAddr): boolean {
  return p.hostname === BUILTIN_HOST && p.namespace === BUILTIN_NAMESPACE;
}

export function isLegacy(p: ProviderAddr): boolean {
  return p.hostname === DEFAULT_REGISTRY_HOST && p.namespace === LEGACY_NAMESPACE;
}

export function sameProvider(a: ProviderAddr, b: ProviderAddr): boolean {
  return a.hostname === b.hostname && a.namespace === b.namespace && a.type === b.type;
}

/** Terraform's Provider.LessThan: by hostname, then namespace, then type. */
export function compareProviders(a: ProviderAddr, b: ProviderAddr): number {
  for (const k of ['hostname', 'namespace', 'type'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

/** ImpliedProviderForUnqualifiedType. */
export function impliedProvider(typeName: string): ProviderAddr {
  if (typeName === 'terraform') return { hostname: BUILTIN_HOST, namespace: BUILTIN_NAMESPACE, type: 'terraform' };
  return { hostname: DEFAULT_REGISTRY_HOST, namespace: 'hashicorp', type: typeName.toLowerCase() };
}

/** The local name a resource type implies (the part before the first underscore). */
export function resourceTypeProviderName(resourceType: string): string {
  const i = resourceType.indexOf('_');
  return i < 0 ? resourceType : resourceType.slice(0, i);
}

/**
 * ParseProviderPart: a namespace or type, normalised to lower case; an error text when invalid. Letters are
 * limited to ASCII here (Terraform also accepts internationalised names through IDNA).
 */
export function parseProviderPart(given: string): { value: string } | { error: string } {
  if (given.length === 0) return { error: 'must have at least one character' };
  if (given.includes('.')) return { error: 'dots are not allowed' };
  if (given.includes('--')) return { error: 'cannot use multiple consecutive dashes' };
  const lower = given.toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(lower))
    return { error: 'must contain only letters, digits, and dashes, and may not use leading or trailing dashes' };
  return { value: lower };
}

function parseHostname(given: string): string | undefined {
  const lower = given.toLowerCase();
  const m = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)(:([0-9]+))?$/.exec(lower);
  if (!m) return undefined;
  if (m[6] === '443') return m[1];
  return lower;
}

const BAD_SOURCE: AddrError = {
  summary: 'Invalid provider source string',
  detail: 'The "source" attribute must be in the format "[hostname/][namespace/]name"',
};

/**
 * ParseProviderSource. A bare type name gives namespace UNKNOWN_NAMESPACE ("?"), as Terraform's parser does;
 * required_providers resolution then treats it as the implied provider of that name.
 */
export function parseProviderSource(str: string): ProviderAddr | AddrError {
  const parts = str.split('/');
  if (parts.length > 3 || parts.some((p) => p === '')) return BAD_SOURCE;
  const givenName = parts[parts.length - 1];
  const name = parseProviderPart(givenName);
  if ('error' in name)
    return { summary: 'Invalid provider type', detail: `Invalid provider type ${JSON.stringify(givenName)} in source ${JSON.stringify(str)}: ${name.error}"` };
  const ret: ProviderAddr = { hostname: DEFAULT_REGISTRY_HOST, namespace: UNKNOWN_NAMESPACE, type: name.value };
  if (parts.length === 1) return ret;
  const givenNs = parts[parts.length - 2];
  if (givenNs === LEGACY_NAMESPACE) ret.namespace = LEGACY_NAMESPACE;
  else {
    const ns = parseProviderPart(givenNs);
    if ('error' in ns)
      return { summary: 'Invalid provider namespace', detail: `Invalid provider namespace "" in source ${JSON.stringify(str)}: ${ns.error}"` };
    ret.namespace = ns.value;
  }
  if (parts.length === 3) {
    const hn = parseHostname(parts[0]);
    if (hn === undefined)
      return { summary: 'Invalid provider source hostname', detail: `Invalid provider source hostname namespace "" in source ${JSON.stringify(str)}: invalid hostname"` };
    ret.hostname = hn;
  }
  if (ret.namespace === LEGACY_NAMESPACE && ret.hostname !== DEFAULT_REGISTRY_HOST)
    return { summary: 'Invalid provider namespace', detail: `The legacy provider namespace "-" can be used only with hostname ${DEFAULT_REGISTRY_HOST}.` };
  if (ret.type.startsWith('terraform-')) {
    if (ret.type.startsWith('terraform-provider-')) {
      const suggested = ret.type.slice('terraform-provider-'.length);
      if ('value' in parseProviderPart(suggested))
        return {
          summary: 'Invalid provider type',
          detail: `Provider source ${JSON.stringify(providerForDisplay(ret))} has a type with the prefix "terraform-provider-", which isn't valid. Although that prefix is often used in the names of version control repositories for Terraform providers, provider source strings should not include it.\n\nDid you mean ${JSON.stringify(providerForDisplay({ ...ret, type: suggested }))}?`,
        };
    }
    return {
      summary: 'Invalid provider type',
      detail: `Provider source ${JSON.stringify(providerString(ret))} has a type with the prefix "terraform-", which isn't allowed because it would be redundant to name a Terraform provider with that prefix. If you are the author of this provider, rename it to not include the prefix.`,
    };
  }
  return ret;
}

export function isAddrError(x: ProviderAddr | AddrError): x is AddrError {
  return 'summary' in x;
}

/** Parses a fully qualified "hostname/namespace/type" (lock files, state); undefined when not one. */
export function parseFullyQualified(str: string): ProviderAddr | undefined {
  if (str.split('/').length !== 3) return undefined;
  const p = parseProviderSource(str);
  return isAddrError(p) ? undefined : p;
}
