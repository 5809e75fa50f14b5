// A provider that misbehaves on purpose, for differential tests against Terraform (issue 10 §4): it wraps a
// well-behaved provider and breaks one contract.
//
// API (stable):
//   MISBEHAVIOURS: the kinds below; misbehavingProvider(p, kind): Provider; tamperResponse(kind) for serve.ts's
//   wire-level hook (the 'wrong-type' kind cannot be expressed with well-typed Values).
//   - 'invalid-plan'        PlanResourceChange changes a configured (non-computed) string attribute.
//   - 'inconsistent-apply'  ApplyResourceChange returns a different value for a known planned string attribute.
//   - 'wrong-type'          PlanResourceChange's planned_state carries a number where the schema says string.
//   - 'panic'               PlanResourceChange kills the process at once (a Go-like panic trace on stderr first).
//   - 'hang'                PlanResourceChange never answers until StopProvider is called; then it answers an
//                           error diagnostic.
//   - 'exit-apply'          the third ApplyResourceChange that creates or updates kills the process mid-call (after
//                           the two before it completed), as a provider crashing during apply.
//   - 'hang-apply'          the third ApplyResourceChange that creates or updates never answers until StopProvider is
//                           called; then it answers an error diagnostic, as an SDKv2/framework resource whose context
//                           is cancelled by the provider's StopContext does (the object is not created).
//   - 'stuck-apply'         the third ApplyResourceChange that creates or updates never answers at all, StopProvider
//                           or not (StopProvider itself answers): a provider stuck in a call that ignores its context.
// Every kind above only acts on resources that are being created or updated (not on destroys), so validation and
// configuration succeed as usual. The kinds below break one of core's per-call contracts (reference §5) in a way
// the wire can carry, each on the calls named:
//   - 'unknown-read'         ReadResource returns the first known string attribute as unknown.
//   - 'unknown-upgrade'      UpgradeResourceState returns the first known string attribute as unknown.
//   - 'unknown-after-apply'  ApplyResourceChange (create/update) leaves the first known string attribute unknown.
//   - 'null-after-apply'     ApplyResourceChange (create/update) returns a null object.
//   - 'bad-requires-replace' PlanResourceChange of an update asks to replace for an attribute path that does not exist.
//   - 'multi-import'         ImportResourceState returns its object twice.
//   - 'null-import'          ImportResourceState returns a null object.
//   - 'null-data'            ReadDataSource returns a null object.
//   - 'unknown-data'         ReadDataSource returns the first known string attribute as unknown.
//   - 'defer-plan'           PlanResourceChange of a create answers deferred (resource_config_unknown), though the
//                            client capabilities said deferrals are not allowed.

import * as T from '../lang/types';
import { Value } from '../lang/value';
import type { Provider } from '../providers/provider';
import { impliedType } from '../providers/schema';
import type { Msg, Method, Schemas } from './convert';
import { marshal } from './msgpack';

export const MISBEHAVIOURS = [
  'invalid-plan',
  'inconsistent-apply',
  'wrong-type',
  'panic',
  'hang',
  'exit-apply',
  'hang-apply',
  'stuck-apply',
  'unknown-read',
  'unknown-upgrade',
  'unknown-after-apply',
  'null-after-apply',
  'bad-requires-replace',
  'multi-import',
  'null-import',
  'null-data',
  'unknown-data',
  'defer-plan',
] as const;
export type Misbehaviour = (typeof MISBEHAVIOURS)[number];

/** The first attribute of the object that is a known, non-null string (attribute names in order). */
function knownStringAttr(v: Value, skipComputedOnly?: Set<string>): string | undefined {
  if (!v.isKnown || v.isNull || v.type.kind !== 'object') return undefined;
  for (const k of T.attrNames(v.type)) {
    if (skipComputedOnly?.has(k)) continue;
    const a = v.entries.get(k)!;
    if (a.type.kind === 'string' && a.isKnown && !a.isNull) return k;
  }
  return undefined;
}

function withAttr(v: Value, name: string, x: Value): Value {
  const m = new Map(v.entries);
  m.set(name, x);
  return Value.object(m);
}

/** The object with its first known string attribute made unknown (unchanged when it has none). */
function unknownFirstString(v: Value): Value {
  const k = knownStringAttr(v);
  return k ? withAttr(v, k, Value.unknown(T.String)) : v;
}

export function misbehavingProvider(p: Provider, kind: Misbehaviour): Provider {
  let computedOnly = new Map<string, Set<string>>();
  let releaseHang: (() => void) | undefined;
  let applies = 0;
  const stopped = new Promise<void>((r) => (releaseHang = r));
  return {
    ...bind(p),
    async getProviderSchema() {
      const r = await p.getProviderSchema();
      computedOnly = new Map(Object.entries(r.resourceTypes).map(([t, s]) => [t, new Set(Object.entries(s.block.attributes).filter(([, a]) => a.computed && !a.optional).map(([k]) => k))]));
      return r;
    },
    async upgradeResourceState(req) {
      const res = await p.upgradeResourceState(req);
      return kind === 'unknown-upgrade' ? { ...res, upgradedState: unknownFirstString(res.upgradedState) } : res;
    },
    async readResource(req) {
      const res = await p.readResource(req);
      return kind === 'unknown-read' ? { ...res, newState: unknownFirstString(res.newState) } : res;
    },
    async importResourceState(req) {
      const res = await p.importResourceState(req);
      const first = res.importedResources[0];
      if (!first) return res;
      if (kind === 'multi-import') return { ...res, importedResources: [first, first] };
      if (kind === 'null-import') return { ...res, importedResources: [{ ...first, state: Value.null(first.state.type) }] };
      return res;
    },
    async readDataSource(req) {
      const res = await p.readDataSource(req);
      if (kind === 'null-data') return { ...res, state: Value.null(res.state.type) };
      if (kind === 'unknown-data') return { ...res, state: unknownFirstString(res.state) };
      return res;
    },
    async planResourceChange(req) {
      const res = await p.planResourceChange(req);
      if (req.proposedNewState.isNull) return res;
      if (kind === 'defer-plan' && req.priorState.isNull) return { ...res, deferred: { reason: 'resource_config_unknown' } };
      if (kind === 'bad-requires-replace' && !req.priorState.isNull) return { ...res, requiresReplace: [...res.requiresReplace, [{ kind: 'attr', name: 'no_such_attribute' }]] };
      if (kind === 'panic') {
        // Like a Go panic: the trace on stderr (synchronous for pipes), then the process dies without closing
        // its connections (SIGKILL), so the client sees the transport vanish (gRPC UNAVAILABLE).
        process.stderr.write('panic: misbehaving provider: PlanResourceChange\n\ngoroutine 1 [running]:\nmain.main()\n');
        process.kill(process.pid, 'SIGKILL');
      }
      if (kind === 'hang') {
        await stopped;
        return { ...res, diagnostics: [{ severity: 'error', summary: 'Stopped', detail: 'The provider was asked to stop while planning.' }] };
      }
      if (kind === 'invalid-plan') {
        const k = knownStringAttr(req.config, computedOnly.get(req.typeName));
        if (k && res.plannedState.isKnown && !res.plannedState.isNull) return { ...res, plannedState: withAttr(res.plannedState, k, Value.string(req.config.entries.get(k)!.str + '-changed')) };
      }
      return res;
    },
    async applyResourceChange(req) {
      if (kind === 'exit-apply' && !req.plannedState.isNull && ++applies === 3) {
        process.stderr.write('panic: misbehaving provider: ApplyResourceChange\n\ngoroutine 1 [running]:\nmain.main()\n');
        process.kill(process.pid, 'SIGKILL');
      }
      if ((kind === 'hang-apply' || kind === 'stuck-apply') && !req.plannedState.isNull && ++applies === 3) {
        if (kind === 'stuck-apply') await new Promise<never>(() => undefined);
        await stopped;
        return {
          newState: Value.null(req.plannedState.type),
          private: new Uint8Array(0),
          diagnostics: [{ severity: 'error', summary: 'Stopped', detail: 'The provider was asked to stop while applying: context canceled.' }],
        };
      }
      const res = await p.applyResourceChange(req);
      if (kind === 'unknown-after-apply' && !req.plannedState.isNull) return { ...res, newState: unknownFirstString(res.newState) };
      if (kind === 'null-after-apply' && !req.plannedState.isNull) return { ...res, newState: Value.null(res.newState.type) };
      if (kind === 'inconsistent-apply' && !req.plannedState.isNull) {
        const k = knownStringAttr(req.plannedState);
        if (k && !res.newState.isNull) return { ...res, newState: withAttr(res.newState, k, Value.string(res.newState.entries.get(k)!.str + '-inconsistent')) };
      }
      return res;
    },
    async stopProvider() {
      releaseHang?.();
      return p.stopProvider();
    },
  };
}

function bind(p: Provider): Provider {
  return {
    getProviderSchema: () => p.getProviderSchema(),
    validateProviderConfig: (r) => p.validateProviderConfig(r),
    validateResourceConfig: (r) => p.validateResourceConfig(r),
    validateDataResourceConfig: (r) => p.validateDataResourceConfig(r),
    configureProvider: (r) => p.configureProvider(r),
    upgradeResourceState: (r) => p.upgradeResourceState(r),
    readResource: (r) => p.readResource(r),
    planResourceChange: (r) => p.planResourceChange(r),
    applyResourceChange: (r) => p.applyResourceChange(r),
    importResourceState: (r) => p.importResourceState(r),
    moveResourceState: (r) => p.moveResourceState(r),
    readDataSource: (r) => p.readDataSource(r),
    stopProvider: () => p.stopProvider(),
    close: () => p.close(),
  };
}

/**
 * For 'wrong-type': rewrites a PlanResourceChange response so its planned_state encodes the first known string
 * attribute as the number 42 (encoded against a type with that attribute as number).
 */
export function tamperResponse(kind: Misbehaviour): ((method: Method, msg: Msg, schemas: Schemas, req: unknown, res: unknown) => Msg) | undefined {
  if (kind !== 'wrong-type') return undefined;
  return (method, msg, schemas, req, res) => {
    if (method !== 'planResourceChange') return msg;
    const r = req as { typeName: string; proposedNewState: Value };
    const planned = (res as { plannedState: Value }).plannedState;
    if (r.proposedNewState.isNull || !planned.isKnown || planned.isNull) return msg;
    const k = knownStringAttr(planned);
    if (!k) return msg;
    const t = impliedType(schemas.resourceTypes[r.typeName].block);
    const attrs = new Map(t.attrs);
    attrs.set(k, T.Number);
    const bad = withAttr(planned, k, Value.number(42));
    return { ...msg, planned_state: { msgpack: marshal(bad, T.Obj(attrs)), json: Buffer.alloc(0) } };
  };
}
