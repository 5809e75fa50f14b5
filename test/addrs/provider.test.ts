// Provider source addresses: parsing required_providers `source` strings with Terraform's messages,
// normalisation, implied providers, display forms and ordering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareProviders,
  impliedProvider,
  isAddrError,
  parseProviderSource,
  providerForDisplay,
  providerString,
  resourceTypeProviderName,
} from '../../server/addrs/provider';

// [source, fully-qualified string or "error: summary: detail"]
const PARSE: [string, string][] = [
  ['hashicorp/random', 'registry.terraform.io/hashicorp/random'],
  ['HashiCorp/Random', 'registry.terraform.io/hashicorp/random'],
  ['registry.terraform.io/hashicorp/null', 'registry.terraform.io/hashicorp/null'],
  ['terraform.io/builtin/terraform', 'terraform.io/builtin/terraform'],
  ['example.com:443/ns/p', 'example.com/ns/p'],
  ['random', 'registry.terraform.io/?/random'],
  ['a/b/c/d', 'error: Invalid provider source string: The "source" attribute must be in the format "[hostname/][namespace/]name"'],
  ['hashicorp/', 'error: Invalid provider source string: The "source" attribute must be in the format "[hostname/][namespace/]name"'],
  ['hashicorp/ran.dom', 'error: Invalid provider type: Invalid provider type "ran.dom" in source "hashicorp/ran.dom": dots are not allowed"'],
  ['hashicorp/a--b', 'error: Invalid provider type: Invalid provider type "a--b" in source "hashicorp/a--b": cannot use multiple consecutive dashes"'],
  [
    'hashicorp/terraform-provider-aws',
    'error: Invalid provider type: Provider source "hashicorp/terraform-provider-aws" has a type with the prefix "terraform-provider-", which isn\'t valid. Although that prefix is often used in the names of version control repositories for Terraform providers, provider source strings should not include it.\n\nDid you mean "hashicorp/aws"?',
  ],
  [
    'hashicorp/terraform-aws',
    'error: Invalid provider type: Provider source "registry.terraform.io/hashicorp/terraform-aws" has a type with the prefix "terraform-", which isn\'t allowed because it would be redundant to name a Terraform provider with that prefix. If you are the author of this provider, rename it to not include the prefix.',
  ],
  ['example.com/-/p', 'error: Invalid provider namespace: The legacy provider namespace "-" can be used only with hostname registry.terraform.io.'],
];
for (const [src, want] of PARSE)
  test(`parse ${JSON.stringify(src)}`, () => {
    const p = parseProviderSource(src);
    assert.equal(isAddrError(p) ? `error: ${p.summary}: ${p.detail}` : providerString(p), want);
  });

test('implied providers and display forms', () => {
  assert.deepEqual(
    ['terraform', 'random', 'null'].map((n) => [providerString(impliedProvider(n)), providerForDisplay(impliedProvider(n))]),
    [
      ['terraform.io/builtin/terraform', 'terraform.io/builtin/terraform'],
      ['registry.terraform.io/hashicorp/random', 'hashicorp/random'],
      ['registry.terraform.io/hashicorp/null', 'hashicorp/null'],
    ],
  );
});

test('resource type prefixes name their provider', () => {
  assert.deepEqual(['random_id', 'terraform_data', 'null_resource', 'aws_s3_bucket', 'x'].map(resourceTypeProviderName), ['random', 'terraform', 'null', 'aws', 'x']);
});

test('providers sort by hostname, namespace, type', () => {
  const list = ['terraform.io/builtin/terraform', 'registry.terraform.io/hashicorp/random', 'registry.terraform.io/hashicorp/null', 'example.com/a/z'];
  const sorted = list.map((s) => parseProviderSource(s)).filter((p) => !isAddrError(p)).sort((a, b) => compareProviders(a as never, b as never));
  assert.deepEqual(sorted.map((p) => providerString(p as never)), [
    'example.com/a/z',
    'registry.terraform.io/hashicorp/null',
    'registry.terraform.io/hashicorp/random',
    'terraform.io/builtin/terraform',
  ]);
});
