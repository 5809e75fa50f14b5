// The `null` provider (registry.terraform.io/hashicorp/null), compatible with hashicorp/null 3.2.4 (same
// behaviour as 3.2.3):
//
// - resource `null_resource`: `triggers` (map of strings; a change replaces the resource, keys with null
//   values ignored), `id` a random non-negative integer as a decimal string chosen at create and kept
//   afterwards. No import (the framework's "Resource Import Not Implemented").
// - data source `null_data_source` (deprecated): `outputs` copies `inputs`, `random` is a random integer
//   string, `has_computed_default` defaults to "default", `id` is "static".
//
// Written with the SDK (../sdk). Siblings: terraform.ts, random.ts, index.ts.

import { randomInt } from 'node:crypto';
import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import type { Provider } from '../provider';
import { attr, defineProvider, get, requiresReplaceIfValuesNotNull, S, useStateForUnknown, withAttrs } from '../sdk';

export const NULL_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/null';

/** A random non-negative integer below 2^63 as decimal text (Go's rand.Int()). */
export function randomInt63(): string {
  const hi = BigInt(randomInt(0, 2 ** 31));
  const lo = BigInt(randomInt(0, 2 ** 32));
  return ((hi << 32n) | lo).toString();
}

/** The `null` provider. */
export function nullProvider(): Provider {
  return defineProvider({
    name: 'null',
    resources: {
      null_resource: {
        description:
          'The `null_resource` resource implements the standard resource lifecycle but takes no further action. On Terraform 1.4 and later, use the [`terraform_data` resource type](https://developer.hashicorp.com/terraform/language/resources/terraform-data) instead. Terraform 1.9 and later support the `moved` configuration block from `null_resource` to `terraform_data`.\n\nThe `triggers` argument allows specifying an arbitrary set of values that, when changed, will cause the resource to be replaced.',
        attributes: {
          triggers: attr.map(T.String, {
            optional: true,
            description: 'A map of arbitrary strings that, when changed, will force the null resource to be replaced, re-running any associated provisioners.',
            planModifiers: [requiresReplaceIfValuesNotNull()],
          }),
          id: attr.string({ computed: true, description: 'This is set to a random value at create time.', planModifiers: [useStateForUnknown()] }),
        },
        create: ({ planned }) => ({ state: withAttrs(planned, { id: S(randomInt63()) }) }),
      },
    },
    dataSources: {
      null_data_source: {
        deprecationMessage:
          'The null_data_source was historically used to construct intermediate values to re-use elsewhere in configuration, the same can now be achieved using locals or the terraform_data resource type in Terraform 1.4 and later.',
        attributes: {
          inputs: attr.map(T.String, { optional: true, description: 'A map of arbitrary strings that is copied into the `outputs` attribute, and accessible directly for interpolation.' }),
          outputs: attr.map(T.String, { computed: true, description: 'After the data source is "read", a copy of the `inputs` map.' }),
          random: attr.string({ computed: true, description: 'A random value. This is primarily for testing and has little practical use; prefer the [hashicorp/random provider](https://registry.terraform.io/providers/hashicorp/random) for more practical random number use-cases.' }),
          has_computed_default: attr.string({ optional: true, computed: true, description: 'If set, its literal value will be stored and returned. If not, its value defaults to `"default"`. This argument exists primarily for testing and has little practical use.' }),
          id: attr.string({
            computed: true,
            description: 'This attribute is only present for some legacy compatibility issues and should not be used. It will be removed in a future version.',
            deprecationMessage: 'This attribute is only present for some legacy compatibility issues and should not be used. It will be removed in a future version.',
          }),
        },
        read: ({ config }) => {
          const hcd = get(config, 'has_computed_default');
          return {
            state: {
              inputs: get(config, 'inputs'),
              outputs: get(config, 'inputs'),
              random: S(randomInt63()),
              has_computed_default: hcd.isNull ? S('default') : hcd,
              id: Value.string('static'),
            },
          };
        },
      },
    },
  });
}
