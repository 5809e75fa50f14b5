// A deliberately misbehaving provider for tests (registry.terraform.io/acme/mis): each resource type breaks
// one contract of the provider protocol, so tests can show the exact diagnostics core's checks
// (server/plans/objchange) produce and that nothing else breaks. Every type has the same schema: `name`
// (optional string), `secret` (optional sensitive string) and `id` (computed string). The misbehaviour is
// chosen by the type name:
//
//   mis_ok                   behaves correctly (the control)
//   mis_plan_changes_config  plans name = "changed" whatever is configured
//   mis_plan_sensitive       plans secret = "leaked" whatever is configured
//   mis_plan_absent          plans null for a create
//   mis_plan_extra_attr      plans an object with an attribute the schema lacks
//   mis_apply_inconsistent   applies name = "drifted" instead of the planned name
//   mis_apply_wrong_type     applies id as a number
//   mis_throws               throws from PlanResourceChange (a crash)
//   mis_hangs                never finishes ApplyResourceChange until StopProvider, then reports cancellation
//
// It implements the Provider interface directly (not through the SDK), as a foreign plugin would.

import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import type { Provider } from '../../../server/providers/provider';
import type { Block, Schema } from '../../../server/providers/schema';
import { nullObject } from '../../../server/providers/schema';

export const MIS_ADDRESS = 'registry.terraform.io/acme/mis';

export const MIS_TYPES = [
  'mis_ok',
  'mis_plan_changes_config',
  'mis_plan_sensitive',
  'mis_plan_absent',
  'mis_plan_extra_attr',
  'mis_apply_inconsistent',
  'mis_apply_wrong_type',
  'mis_throws',
  'mis_hangs',
] as const;

export const MIS_BLOCK: Block = {
  attributes: {
    name: { type: T.String, optional: true },
    secret: { type: T.String, optional: true, sensitive: true },
    id: { type: T.String, computed: true },
  },
  blockTypes: {},
};

const EMPTY = new Uint8Array(0);

function withAttr(v: Value, name: string, x: Value): Value {
  const m = new Map(v.entries);
  m.set(name, x);
  return Value.object(m);
}

/** A new misbehaving provider. */
export function misbehavingProvider(): Provider {
  const schema: Schema = { version: 0, block: MIS_BLOCK };
  const resourceTypes: Record<string, Schema> = {};
  for (const t of MIS_TYPES) resourceTypes[t] = schema;
  let release: (() => void) | undefined;
  return {
    async getProviderSchema() {
      return {
        diagnostics: [],
        provider: { version: 0, block: { attributes: {}, blockTypes: {} } },
        resourceTypes,
        dataSources: {},
        serverCapabilities: { planDestroy: false, getProviderSchemaOptional: false, moveResourceState: false },
      };
    },
    validateProviderConfig: async () => ({ diagnostics: [] }),
    validateResourceConfig: async () => ({ diagnostics: [] }),
    validateDataResourceConfig: async () => ({ diagnostics: [] }),
    configureProvider: async () => ({ diagnostics: [] }),
    upgradeResourceState: async () => ({ diagnostics: [], upgradedState: nullObject(MIS_BLOCK) }),
    readResource: async (req) => ({ diagnostics: [], newState: req.currentState, private: req.private }),
    async planResourceChange(req) {
      const base = { diagnostics: [], requiresReplace: [], plannedPrivate: EMPTY };
      if (req.proposedNewState.isNull) return { ...base, plannedState: req.proposedNewState };
      let planned = req.proposedNewState;
      if (req.priorState.isNull) planned = withAttr(planned, 'id', Value.unknown(T.String));
      switch (req.typeName) {
        case 'mis_plan_changes_config':
          return { ...base, plannedState: withAttr(planned, 'name', Value.string('changed')) };
        case 'mis_plan_sensitive':
          return { ...base, plannedState: withAttr(planned, 'secret', Value.string('leaked')) };
        case 'mis_plan_absent':
          return { ...base, plannedState: nullObject(MIS_BLOCK) };
        case 'mis_plan_extra_attr':
          return { ...base, plannedState: withAttr(planned, 'bogus', Value.bool(true)) };
        case 'mis_throws':
          throw new Error('provider bug: nil pointer dereference');
        default:
          return { ...base, plannedState: planned };
      }
    },
    async applyResourceChange(req) {
      if (req.plannedState.isNull) return { diagnostics: [], newState: req.plannedState, private: EMPTY };
      let state = req.plannedState;
      if (!state.entries.get('id')!.isKnown) state = withAttr(state, 'id', Value.string('id-1'));
      switch (req.typeName) {
        case 'mis_apply_inconsistent':
          return { diagnostics: [], newState: withAttr(state, 'name', Value.string('drifted')), private: EMPTY };
        case 'mis_apply_wrong_type':
          return { diagnostics: [], newState: withAttr(state, 'id', Value.number(42)), private: EMPTY };
        case 'mis_hangs':
          await new Promise<void>((resolve) => (release = resolve));
          return { diagnostics: [{ severity: 'error', summary: 'Request cancelled', detail: 'The ApplyResourceChange request was cancelled.' }], newState: req.priorState, private: EMPTY };
        default:
          return { diagnostics: [], newState: state, private: EMPTY };
      }
    },
    importResourceState: async () => ({ diagnostics: [], importedResources: [] }),
    moveResourceState: async () => ({ diagnostics: [], targetState: nullObject(MIS_BLOCK), targetPrivate: EMPTY }),
    readDataSource: async (req) => ({ diagnostics: [], state: req.config }),
    async stopProvider() {
      release?.();
      release = undefined;
      return {};
    },
    close: async () => undefined,
  };
}
