// The fields of a provider call's response when the call itself failed (a crashed or unresponsive provider):
// Go's zero values, as Terraform's plugin client returns them beside the error diagnostic. One definition for
// every transport (in-process built-ins, the plugin client, its factory).

import { Value } from '../lang/value';

export function failedCallFields(method: string): Record<string, unknown> {
  const none = Value.null();
  const empty = new Uint8Array(0);
  switch (method) {
    case 'getProviderSchema':
      return { provider: { version: 0, block: { attributes: {}, blockTypes: {} } }, resourceTypes: {}, dataSources: {}, serverCapabilities: { planDestroy: false, getProviderSchemaOptional: false, moveResourceState: false } };
    case 'upgradeResourceState':
      return { upgradedState: none };
    case 'planResourceChange':
      return { plannedState: none, requiresReplace: [], plannedPrivate: empty };
    case 'applyResourceChange':
    case 'readResource':
      return { newState: none, private: empty };
    case 'importResourceState':
      return { importedResources: [] };
    case 'moveResourceState':
      return { targetState: none, targetPrivate: empty };
    case 'readDataSource':
      return { state: none };
    default:
      return {};
  }
}
