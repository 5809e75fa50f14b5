// Resolving state-command address arguments against a state (Terraform's StateMeta.lookupResourceInstanceAddr):
// a module address selects every instance in that module and its descendants, a resource address all of its
// instances, an instance address itself; with Terraform's "Unknown module/resource/resource instance" errors.

import { error, type Diagnostic } from '../../diags/diagnostic';
import {
  compareInstanceAddrs,
  instanceAddrString,
  parseModuleInstance,
  resourceAddrString,
  type InstanceAddr,
  type InstanceKey,
  type State,
} from '../../states/state';
import { parseTarget } from './addr';

/** True when a module target (steps) selects the module instance `mod` (itself, a keyed instance or a descendant). */
export function moduleTargetContains(steps: readonly [string, InstanceKey][], mod: string): boolean {
  const ms = parseModuleInstance(mod);
  if (ms.length < steps.length) return false;
  for (let i = 0; i < steps.length; i++) {
    if (steps[i][0] !== ms[i][0]) return false;
    if (steps[i][1] !== undefined && steps[i][1] !== ms[i][1]) return false;
  }
  return true;
}

function instancesOfModule(state: State, mod: string): InstanceAddr[] {
  const out: InstanceAddr[] = [];
  const m = state.modules.get(mod);
  if (!m) return out;
  for (const r of m.resources.values()) for (const is of r.instances.values()) out.push({ module: mod, mode: r.mode, type: r.type, name: r.name, key: is.key });
  return out;
}

export function lookupInstances(state: State, allowMissing: boolean, addrStr: string): { addrs: InstanceAddr[]; diags: Diagnostic[] } {
  const t = parseTarget(addrStr);
  if (!t.target) return { addrs: [], diags: t.diags };
  const ret: InstanceAddr[] = [];
  const diags: Diagnostic[] = [];
  const target = t.target;
  if (target.kind === 'module') {
    let found = false;
    for (const mod of state.modules.keys()) {
      if (mod === '') continue;
      if (moduleTargetContains(target.steps, mod)) {
        found = true;
        ret.push(...instancesOfModule(state, mod));
      }
    }
    if (!found && !allowMissing) {
      diags.push(
        error(
          'Unknown module',
          `The current state contains no module at ${target.module}. If you've just added this module to the configuration, you must run "terraform apply" first to create the module's entry in the state.`,
        ),
      );
    }
  } else if (target.kind === 'resource') {
    const rs = state.resource(target.addr);
    if (!rs) {
      if (!allowMissing)
        diags.push(
          error(
            'Unknown resource',
            `The current state contains no resource ${resourceAddrString(target.addr)}. If you've just added this resource to the configuration, you must run "terraform apply" first to create the resource's entry in the state.`,
          ),
        );
    } else {
      for (const is of rs.instances.values()) ret.push({ ...target.addr, key: is.key });
    }
  } else {
    if (!state.instance(target.addr)) {
      if (!allowMissing)
        diags.push(
          error(
            'Unknown resource instance',
            `The current state contains no resource instance ${instanceAddrString(target.addr)}. If you've just added its resource to the configuration or have changed the count or for_each arguments, you must run "terraform apply" first to update the resource's entry in the state.`,
          ),
        );
    } else ret.push(target.addr);
  }
  ret.sort(compareInstanceAddrs);
  return { addrs: ret, diags };
}
