// The provider SDK: a small typed framework for writing Terraform providers in TypeScript against the
// provider interface (../provider.ts). The built-in providers (../builtin/) are written with it.
//
// Files: schema.ts (attribute declarations, validators, plan modifiers, defaults), define.ts
// (`defineProvider`, the request handling), values.ts (reading and building cty Values), json.ts (the state
// JSON encoding, for upgraders and moves).
//
// Writing a provider
// ------------------
// 1. Declare each resource type's attributes with `attr.<type>({...})`: `required`, `optional`, `computed`,
//    `sensitive`; `default` for optional+computed attributes; `validators` (atLeast, atLeastSumOf, oneOf,
//    ... or `validator(description, fn)`); `planModifiers` (requiresReplace(), requiresReplaceIf(cond, text),
//    useStateForUnknown(), or `planModifier(description, fn)`); `deprecationMessage`.
// 2. Give the lifecycle functions. Only `create` is required:
//      create({ planned, config }, ctx)   → { state }     the planned object with every unknown filled in
//      read({ state }, ctx)               → { state }     the refreshed object, or `state: null` when it is gone
//      update({ prior, planned, config }) → { state }     default: the planned object
//      delete({ prior })                                  default: nothing to do
//      importState(id)                    → { state }     the object for `terraform import` / import blocks
//      modifyPlan({ prior, config, planned })             whole-object plan changes and extra replace paths
//    `state` may be a Value or a record of attribute Values; missing attributes are filled with nulls.
//    Problems are returned as `diagnostics` (attrError(path, summary, detail) locates them), never thrown:
//    a thrown exception is a provider bug and reaches core as "Plugin did not respond".
// 3. When the schema changes incompatibly, raise `version` and add `upgraders[oldVersion] = { priorSchema,
//    upgrade(prior) }`, which receives the stored object decoded with the old schema.
// 4. `defineProvider({ name, resources: { <type>: {...} }, dataSources, config, configure })` returns the
//    Provider. Register it (../builtin/index.ts shows how) and it is reachable in-process or, since every
//    request and response is plain data, through any transport.
//
// Limitations: defaults, validators and plan modifiers apply to top-level attributes. Nested blocks and nested
// attribute types are declared with their wire schema (`blocks`, or an Attribute with `nestedType` in
// `{ schema }`) and checked or planned in `validateConfig` / `modifyPlan`.
//
// Example:
//
//   const example = defineProvider({
//     name: 'example',
//     resources: {
//       example_thing: {
//         attributes: {
//           name: attr.string({ required: true, planModifiers: [requiresReplace()] }),
//           size: attr.int64({ optional: true, computed: true, default: 1, validators: [atLeast(1)] }),
//           id: attr.string({ computed: true, planModifiers: [useStateForUnknown()] }),
//         },
//         create: ({ planned }) => ({ state: withAttrs(planned, { id: S(str(get(planned, 'name'))) }) }),
//       },
//     },
//   });

export * from './define';
export * from './schema';
export * from './values';
export * from './json';
