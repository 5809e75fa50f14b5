// Root module input variable values, as Terraform collects, parses and finalises them.
//
// Contract:
//   collectVariableValues(cwd, args, env)  the raw values by name with Terraform's precedence (later wins):
//        TF_VAR_* environment variables < terraform.tfvars < terraform.tfvars.json < *.auto.tfvars(.json) in
//        lexical order < -var / -var-file in command-line order. Files are read relative to `cwd` and named
//        as given; their text is returned in `sources` for diagnostic snippets.
//   parseVariableValues(raw, mod, opts)    parses each raw value with its variable's parsing mode (literal
//        string for primitive or absent types, HCL expression otherwise), reports undeclared variables
//        (warnings for files, errors for -var) and "No value for required variable"; with
//        `allowUnset` (the console) required variables with no raw value at all become unknown.
//   finalizeVariable(v, input)             default, type conversion, nullable, sensitive/ephemeral marks
//        (Terraform's PrepareFinalInputVariableValue and its messages).
//   validateVariable(...)                  validation blocks ("Invalid value for variable").
// Values from files and -var are constant expressions: references and function calls are errors
// ("Variables not allowed", "Function calls not allowed") as with HCL's nil evaluation context.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, hasErrors, warning } from '../diags/diagnostic';
import type { Expr } from '../lang/ast';
import { forEachChild as forEachChildExpr } from '../lang/ast';
import { convert, typeFromExpr } from '../lang/convert';
import { evalExpr, evaluate, type Scope } from '../lang/eval';
import { Num } from '../lang/number';
import { parseExpression, references, traversalString } from '../lang/parse';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import { Value } from '../lang/value';
import { readHclBody } from './parsebody';
import type { Condition, Module, Variable } from './model';
import { jsonVariableValues } from './json';
import { rangeString } from './source';

export type ValueSource = 'env' | 'auto-file' | 'named-file' | 'cli' | 'unset';

/** A value as given, before the variable's parsing mode is known (Terraform's UnparsedVariableValue). */
export interface RawValue {
  name: string;
  source: ValueSource;
  /** For env and cli values: the string after "=". */
  str?: string;
  /** For file values: the expression (already parsed) and its range. */
  expr?: Expr;
  value?: Value;
  range?: Range;
}

/** A parsed value (Terraform's InputValue); `value` undefined means "not set" (use the default). */
export interface InputValue {
  value?: Value;
  source: ValueSource | 'config';
  /** The range of the value in a .tfvars file, when it came from one. */
  range?: Range;
}

export interface VarFlag {
  flag: '-var' | '-var-file';
  value: string;
}

/** Splits -var/-var-file flags (both `-var=x` and `-var x` forms) from other arguments. */
export function splitVarFlags(args: readonly string[]): { vars: VarFlag[]; rest: string[]; diagnostics: Diagnostic[] } {
  const vars: VarFlag[] = [];
  const rest: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^--?(var|var-file)(?:=(.*))?$/s.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const flag = m[1] === 'var' ? '-var' : '-var-file';
    if (m[2] !== undefined) vars.push({ flag, value: m[2] });
    else if (i + 1 < args.length) vars.push({ flag, value: args[++i] });
    else rest.push(a);
  }
  return { vars, rest, diagnostics };
}

const VAR_ENV_PREFIX = 'TF_VAR_';

function isAutoVarFile(n: string): boolean {
  return n.endsWith('.auto.tfvars') || n.endsWith('.auto.tfvars.json');
}

/** Go's sort order for file names (byte-wise). */
function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export async function collectVariableValues(
  cwd: string,
  args: readonly VarFlag[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ raw: Map<string, RawValue>; diagnostics: Diagnostic[]; sources: Map<string, string> }> {
  const raw = new Map<string, RawValue>();
  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, string>();
  // Environment first: the lowest precedence. Entries without "=" cannot exist in a JS env object.
  for (const [k, v] of Object.entries(env)) {
    if (!k.startsWith(VAR_ENV_PREFIX) || v === undefined) continue;
    const name = k.slice(VAR_ENV_PREFIX.length);
    raw.set(name, { name, source: 'env', str: v });
  }
  const addFile = async (name: string, source: ValueSource) => {
    const r = await readVarsFile(cwd, name, source);
    diagnostics.push(...r.diagnostics);
    if (r.text !== undefined) sources.set(name, r.text);
    for (const [k, v] of r.values) raw.set(k, v);
  };
  const exists = (n: string) => {
    try {
      statSync(resolve(cwd, n));
      return true;
    } catch {
      return false;
    }
  };
  if (exists('terraform.tfvars')) await addFile('terraform.tfvars', 'auto-file');
  if (exists('terraform.tfvars.json')) await addFile('terraform.tfvars.json', 'auto-file');
  let names: string[] = [];
  try {
    names = readdirSync(cwd).sort(byteCompare);
  } catch {
    names = [];
  }
  for (const n of names) if (isAutoVarFile(n)) await addFile(n, 'auto-file');
  for (const a of args) {
    if (a.flag === '-var-file') {
      await addFile(a.value, 'named-file');
      continue;
    }
    const eq = a.value.indexOf('=');
    if (eq < 0) {
      diagnostics.push(
        error(
          'Invalid -var option',
          `The given -var option ${JSON.stringify(a.value)} is not correctly specified. Must be a variable name and value separated by an equals sign, like -var="key=value".`,
        ),
      );
      continue;
    }
    const name = a.value.slice(0, eq);
    const str = a.value.slice(eq + 1);
    if (name.endsWith(' ')) {
      diagnostics.push(
        error(
          'Invalid -var option',
          `Variable name ${JSON.stringify(name)} is invalid due to trailing space. Did you mean -var="${name.trimEnd()}=${str.trimStart()}"?`,
        ),
      );
      continue;
    }
    raw.set(name, { name, source: 'cli', str });
  }
  return { raw, diagnostics, sources };
}

/** Reads one .tfvars or .tfvars.json file: its attribute values, unevaluated. */
export async function readVarsFile(
  cwd: string,
  filename: string,
  source: ValueSource,
): Promise<{ values: Map<string, RawValue>; diagnostics: Diagnostic[]; text?: string }> {
  const values = new Map<string, RawValue>();
  const diagnostics: Diagnostic[] = [];
  let text: string;
  try {
    text = readFileSync(resolve(cwd, filename), 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    diagnostics.push(
      code === 'ENOENT'
        ? error('Failed to read variables file', `Given variables file ${filename} does not exist.`)
        : error('Failed to read variables file', `Error while reading ${filename}: ${(e as Error).message}.`),
    );
    return { values, diagnostics };
  }
  if (filename.endsWith('.json')) {
    const r = jsonVarsValues(text, filename, source);
    return { values: r.values, diagnostics: r.diagnostics, text };
  }
  const file = await readHclBody(text, filename);
  diagnostics.push(...file.syntax);
  const body = file.body;
  if (!body || hasErrors(file.syntax)) return { values, diagnostics, text };
  // Variable declarations are reported first, on their own (Terraform returns after them).
  for (const b of body.blocks) {
    if (b.type !== 'variable' || b.labels.length !== 1) continue;
    const name = b.labels[0];
    diagnostics.push(
      error(
        'Variable declaration in .tfvars file',
        `A .tfvars file is used to assign values to variables that have already been declared in .tf files, not to declare new variables. To declare variable ${JSON.stringify(name)}, place this block in one of your .tf files, such as variables.tf.\n\nTo set a value for this variable in ${filename}, use the definition syntax instead:\n    ${name} = <value>`,
        b.typeRange,
      ),
    );
  }
  if (hasErrors(diagnostics)) return { values, diagnostics, text };
  if (body.blocks.length > 0) {
    const b = body.blocks[0];
    diagnostics.push(error(`Unexpected "${b.type}" block`, 'Blocks are not allowed here.', b.typeRange));
  }
  for (const a of body.attributes) {
    if (values.has(a.name)) continue; // redefinitions are reported by the syntax check
    const p = parseExpression(a.expr.text, filename, a.expr.range.start);
    if (!p.expr) {
      diagnostics.push(...p.diagnostics);
      continue;
    }
    values.set(a.name, { name: a.name, source, expr: p.expr, range: p.expr.range });
  }
  return { values, diagnostics, text };
}

/** Values of a .tfvars.json file (config/json.ts: HCL's JSON parser and messages, each value with its own range). */
function jsonVarsValues(text: string, filename: string, source: ValueSource): { values: Map<string, RawValue>; diagnostics: Diagnostic[] } {
  const r = jsonVariableValues(text, filename);
  return { values: new Map(r.values.map((v) => [v.name, { name: v.name, source, value: v.value, range: v.range }])), diagnostics: r.diagnostics };
}

// ---- constant evaluation (HCL's Value(nil)) -------------------------------------------------------------

const NO_FUNCS = { baseDir: '.', planning: true, console: false };

/** Evaluates an expression without variables or functions, with HCL's errors for either. */
export function evalConstant(expr: Expr): { value: Value; diagnostics: Diagnostic[] } {
  const found: Diagnostic[] = [];
  const walk = (e: Expr, bound: ReadonlySet<string>) => {
    if (e.kind === 'scopeTraversal') {
      if (!bound.has(e.traversal.root)) found.push(error('Variables not allowed', 'Variables may not be used here.', e.traversal.rootRange));
      return;
    }
    if (e.kind === 'call') {
      found.push(error('Function calls not allowed', 'Functions may not be called here.', e.range));
      return;
    }
    if (e.kind === 'for') {
      walk(e.collection, bound);
      const inner = new Set(bound);
      inner.add(e.valVar);
      if (e.keyVar) inner.add(e.keyVar);
      if (e.keyExpr) walk(e.keyExpr, inner);
      walk(e.valExpr, inner);
      if (e.cond) walk(e.cond, inner);
      return;
    }
    if (e.kind === 'object') {
      for (const it of e.items) {
        if (!it.keyIsIdent) walk(it.key, bound);
        walk(it.value, bound);
      }
      return;
    }
    forEachChildExpr(e, (c) => walk(c, bound));
  };
  walk(expr, new Set());
  if (found.length) {
    found.sort((a, b) => a.subject!.start.byte - b.subject!.start.byte);
    return { value: Value.unknown(), diagnostics: found };
  }
  return evalExpr(expr, { variables: new Map(), funcCtx: NO_FUNCS });
}


// ---- parsing by mode ----------------------------------------------------------------------------------

/** The declared type with optional-attribute defaults (from the expression engine's type parser). */
export function variableType(v: Variable): Type {
  const ast = v.typeExpr?.ast;
  if (ast && v.typeExpr?.shape !== 'string') {
    const r = typeFromExpr(ast);
    if (!hasErrors(r.diagnostics)) return r.type;
  }
  return v.type;
}

/** Terraform's VariableParsingMode: literal strings for primitive types and untyped variables. */
export function parsingMode(v: Variable): 'literal' | 'hcl' {
  if (!v.typeExpr) return 'literal';
  if (v.typeExpr.shape === 'string') return v.typeExpr.literal === 'string' ? 'literal' : 'hcl';
  const t = v.type;
  return t.kind === 'string' || t.kind === 'number' || t.kind === 'bool' ? 'literal' : 'hcl';
}

function parseByMode(name: string, str: string, mode: 'literal' | 'hcl'): { value: Value; diagnostics: Diagnostic[] } {
  if (mode === 'literal') return { value: Value.string(str), diagnostics: [] };
  const p = parseExpression(str, `<value for var.${name}>`);
  if (!p.expr) return { value: Value.unknown(), diagnostics: p.diagnostics };
  return evalConstant(p.expr);
}

function parseRaw(r: RawValue, mode: 'literal' | 'hcl'): { input?: InputValue; diagnostics: Diagnostic[] } {
  if (r.str !== undefined) {
    const p = parseByMode(r.name, r.str, mode);
    if (hasErrors(p.diagnostics)) return { diagnostics: p.diagnostics };
    return { input: { value: p.value, source: r.source }, diagnostics: p.diagnostics };
  }
  if (r.value) return { input: { value: r.value, source: r.source, range: r.range }, diagnostics: [] };
  if (r.expr) {
    const p = evalConstant(r.expr);
    if (hasErrors(p.diagnostics)) return { diagnostics: p.diagnostics };
    return { input: { value: p.value, source: r.source, range: r.range }, diagnostics: p.diagnostics };
  }
  return { input: { value: r.value, source: r.source }, diagnostics: [] };
}

/** Whether a variable has no default (Terraform's Variable.Required). */
export function isRequired(v: Variable): boolean {
  return v.default === undefined;
}

/** Terraform's ParseVariableValues for the root module. */
export function parseVariableValues(
  raw: ReadonlyMap<string, RawValue>,
  mod: Module,
  opts: { allowUnset?: boolean } = {},
): { values: Map<string, InputValue>; diagnostics: Diagnostic[] } {
  const values = new Map<string, InputValue>();
  const diagnostics: Diagnostic[] = [];
  const all = new Map(raw);
  if (opts.allowUnset) {
    // The console stubs required variables that were given no value at all as unknowns of their type.
    for (const v of mod.variables.values()) {
      if (isRequired(v) && !all.has(v.name)) all.set(v.name, { name: v.name, source: 'unset', value: Value.unknown(variableType(v)) });
    }
  }
  const undeclared = new Set<string>();
  let fileWarnings = 0;
  for (const [name, r] of all) {
    const v = mod.variables.get(name);
    if (v) {
      const p = parseRaw(r, parsingMode(v));
      diagnostics.push(...p.diagnostics);
      if (p.input) values.set(name, p.input);
      continue;
    }
    const p = parseRaw(r, 'literal');
    if (hasErrors(p.diagnostics)) continue;
    undeclared.add(name);
    switch (r.source) {
      case 'auto-file':
      case 'named-file':
        if (fileWarnings < 2)
          diagnostics.push(
            warning(
              'Value for undeclared variable',
              `The root module does not declare a variable named ${JSON.stringify(name)} but a value was found in file ${JSON.stringify(r.range?.filename ?? '')}. If you meant to use this value, add a "variable" block to the configuration.\n\nTo silence these warnings, use TF_VAR_... environment variables to provide certain "global" settings to all configurations in your organization. To reduce the verbosity of these warnings, use the -compact-warnings option.`,
            ),
          );
        fileWarnings++;
        break;
      case 'env':
        break;
      case 'cli':
        diagnostics.push(
          error(
            'Value for undeclared variable',
            `A variable named ${JSON.stringify(name)} was assigned on the command line, but the root module does not declare a variable of that name. To use this value, add a "variable" block to the configuration.`,
          ),
        );
        break;
      default:
        diagnostics.push(
          error(
            'Value for undeclared variable',
            `A variable named ${JSON.stringify(name)} was assigned a value, but the root module does not declare a variable of that name. To use this value, add a "variable" block to the configuration.`,
          ),
        );
    }
  }
  if (fileWarnings > 2)
    diagnostics.push(
      warning('Values for undeclared variables', `In addition to the other similar warnings shown, ${fileWarnings - 2} other variable(s) defined without being declared.`),
    );
  for (const v of mod.variables.values()) {
    if (values.has(v.name) || undeclared.has(v.name)) continue;
    if (isRequired(v)) {
      diagnostics.push(
        error(
          'No value for required variable',
          `The root module input variable ${JSON.stringify(v.name)} is not set, and has no default value. Use a -var or -var-file command line argument to provide a value for this variable.`,
          v.declRange,
        ),
      );
      values.set(v.name, { value: Value.unknown(), source: 'config' });
    } else values.set(v.name, { source: 'config' });
  }
  return { values, diagnostics };
}

// ---- finalisation ---------------------------------------------------------------------------------------

/** The variable's default, evaluated as a constant (undefined when there is none). */
export function defaultValue(v: Variable): { value?: Value; diagnostics: Diagnostic[] } {
  const ast = v.default?.ast;
  if (!ast) return { diagnostics: [] };
  return evalConstant(ast);
}

/**
 * Terraform's PrepareFinalInputVariableValue. `addr` is "var.x" (root) or "module.a.var.x"; `input` is the
 * given value (root: from parseVariableValues; child: the module call argument), undefined when not set.
 */
export function finalizeVariable(v: Variable, input: InputValue | undefined, addr = `var.${v.name}`): { value: Value; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const ty = variableType(v);
  const unknown = () => Value.unknown(ty);
  let def: Value | undefined;
  const d = defaultValue(v);
  if (v.default) {
    if (hasErrors(d.diagnostics)) return { value: unknown(), diagnostics: d.diagnostics };
    const c = convert(d.value!, ty);
    if (c.error !== undefined) {
      diagnostics.push(
        error('Invalid default value for module argument', `The default value for variable ${JSON.stringify(v.name)} is incompatible with its type constraint: ${c.error}.`, v.declRange),
      );
      return { value: unknown(), diagnostics };
    }
    def = c.value;
  }
  let nonFileSource = '';
  if (!input?.range) {
    switch (input?.source) {
      case 'cli':
        nonFileSource = `set using -var="${v.name}=..."`;
        break;
      case 'env':
        nonFileSource = `set using the TF_VAR_${v.name} environment variable`;
        break;
      case 'unset':
        nonFileSource = 'set using an interactive prompt';
        break;
      default:
        nonFileSource = 'set from outside of the configuration';
    }
  }
  let given = input?.value;
  if (given === undefined) {
    if (def === undefined) {
      diagnostics.push(error('Required variable not set', `The variable ${JSON.stringify(v.name)} is required, but is not set.`, v.declRange));
      return { value: unknown(), diagnostics };
    }
    given = def;
  }
  const c = convert(given, ty);
  if (c.error !== undefined) {
    let detail: string;
    let subject: Range = v.declRange;
    if (nonFileSource) detail = `Unsuitable value for ${addr} ${nonFileSource}: ${c.error}.`;
    else if (v.sensitive) detail = `The given value is not suitable for ${addr}, which is sensitive: ${c.error}. Invalid value defined at ${rangeString(input!.range!)}.`;
    else {
      detail = `The given value is not suitable for ${addr} declared at ${rangeString(v.declRange)}: ${c.error}.`;
      subject = input!.range!;
    }
    diagnostics.push(error('Invalid value for input variable', detail, subject));
    return { value: unknown(), diagnostics };
  }
  let val = c.value;
  if (val.isNull && !v.nullable) {
    if (def !== undefined) val = def;
    else {
      diagnostics.push(
        nonFileSource
          ? error('Required variable not set', `Unsuitable value for ${addr} ${nonFileSource}: required variable may not be set to null.`, v.declRange)
          : error(
              'Required variable not set',
              `The given value is not suitable for ${addr} defined at ${rangeString(v.declRange)}: required variable may not be set to null.`,
              input!.range!,
            ),
      );
      val = unknown();
    }
  }
  if (v.ephemeral) val = val.mark('ephemeral');
  return { value: val, diagnostics };
}

// ---- validation -----------------------------------------------------------------------------------------

/** go-cty's CompactValueStr, as Terraform prints values under a diagnostic. */
export function compactValueStr(v: Value): string {
  if (v.isSensitive) return '(sensitive value)';
  if (v.isMarked) return '(ephemeral value)';
  const t = v.type;
  if (v.isNull) return 'null';
  if (!v.isKnown) return '(not yet known)';
  switch (t.kind) {
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'number': {
      const s = v.num.toString();
      const n = Number(s);
      return /^-?\d+$/.test(s) && s.replace('-', '').length <= 10 ? s : goG10(n);
    }
    case 'string':
      return JSON.stringify(v.str);
    case 'list':
    case 'set':
    case 'map':
    case 'tuple': {
      const l = v.length;
      const fn = T.friendlyName(t);
      return l === 0 ? `empty ${fn}` : l === 1 ? `${fn} with 1 element` : `${fn} with ${l} elements`;
    }
    case 'object': {
      const n = t.attrs.size;
      if (n === 0) return 'object with no attributes';
      if (n === 1) return `object with 1 attribute ${JSON.stringify([...t.attrs.keys()][0])}`;
      return `object with ${n} attributes`;
    }
    default:
      return T.friendlyName(t);
  }
}

/** Go's %g with precision 10 for a float64 (big.Float.Text('g', 10) for ordinary values). */
function goG10(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  let s = n.toPrecision(10);
  if (s.includes('e')) {
    let [m, e] = s.split('e');
    if (m.includes('.')) m = m.replace(/0+$/, '').replace(/\.$/, '');
    const ev = Number(e);
    return `${m}e${ev < 0 ? '-' : '+'}${String(Math.abs(ev)).padStart(2, '0')}`;
  }
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

/** The "values" section of a diagnostic about `expr`: known, unmarked values of its references. */
export function expressionValues(expr: Expr, scope: Scope, opts: { causedByUnknown?: boolean } = {}): { traversal: string; statement: string }[] {
  const seen = new Set<string>();
  const out: { traversal: string; statement: string }[] = [];
  for (const t0 of references(expr)) {
    let t = t0;
    for (;;) {
      if (t.steps.length === 0) break;
      const r = evaluate({ kind: 'scopeTraversal', traversal: t, range: t.range }, scope);
      if (hasErrors(r.diagnostics)) {
        t = { ...t, steps: t.steps.slice(0, -1) };
        continue;
      }
      const s = traversalString(t);
      if (seen.has(s)) break;
      const v = r.value;
      let stmt: string | undefined;
      if (v.isMarked) stmt = undefined;
      else if (!v.isKnown) {
        // Terraform's diagnostic values: "known only after apply" when the diagnostic is caused by unknowns.
        if (opts.causedByUnknown) stmt = v.type.kind === 'dynamic' ? 'will be known only after apply' : `is a ${T.friendlyName(v.type)}, known only after apply`;
        else stmt = v.type.kind === 'dynamic' ? undefined : `is a ${T.friendlyName(v.type)}`;
      }
      else stmt = `is ${compactValueStr(v)}`;
      if (stmt) {
        out.push({ traversal: s, statement: stmt });
        seen.add(s);
      }
      break;
    }
  }
  return out.sort((a, b) => (a.traversal < b.traversal ? -1 : a.traversal > b.traversal ? 1 : 0));
}

/**
 * Evaluates a variable's validation rules in `scope` (where var.<name> is the final value). `valueRange` is
 * the subject of failures: the value's range in a .tfvars file, or the variable's declaration.
 */
export function validateVariable(v: Variable, scope: Scope, valueRange: Range): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const rule of v.validations) diags.push(...validationRule(v, rule, scope, valueRange));
  return diags;
}

function validationRule(v: Variable, rule: Condition, scope: Scope, valueRange: Range): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const cond = rule.condition?.ast;
  const msg = rule.errorMessage?.ast;
  if (!cond) return diags;
  const r = evaluate(cond, scope);
  diags.push(...r.diagnostics);
  let errorValue: Value | undefined;
  let errorFailed = false;
  if (msg) {
    const m = evaluate(msg, scope);
    if (hasErrors(m.diagnostics)) {
      errorFailed = true;
      diags.push(...m.diagnostics);
    } else errorValue = m.value;
  }
  if (hasErrors(diags)) return diags;
  let result = r.value;
  if (!result.isKnown) return diags;
  if (result.isNull) {
    diags.push(error('Invalid variable validation result', 'Validation condition expression must return either true or false, not null.', cond.range));
    return diags;
  }
  const c = convert(result, T.Bool);
  if (c.error !== undefined) {
    diags.push(error('Invalid variable validation result', `Invalid validation condition result value: ${c.error}.`, cond.range));
    return diags;
  }
  result = c.value.unmark()[0];
  if (result.bool) return diags;
  let message = '';
  if (errorValue && !errorValue.isKnown) {
    diags.push(
      error('Invalid error message', "Unsuitable value for error message: expression refers to values that won't be known until the apply phase.", msg!.range),
    );
    return diags;
  }
  if (!errorFailed && errorValue && !errorValue.isNull) {
    const s = convert(errorValue, T.String);
    if (s.error !== undefined) diags.push(error('Invalid error message', `Unsuitable value for error message: ${s.error}.`, msg!.range));
    else if (s.value.isSensitive) {
      diags.push(
        error(
          'Error message refers to sensitive values',
          'The error expression used to explain this condition refers to sensitive values. Terraform will not display the resulting message.\n\nYou can correct this by removing references to sensitive values, or by carefully using the nonsensitive() function if the expression will not reveal the sensitive data.',
          msg!.range,
        ),
      );
      message = 'The error message included a sensitive value, so it will not be displayed.';
    } else message = s.value.unmark()[0].str.trim();
  }
  if (message === '') message = 'Failed to evaluate condition error message.';
  diags.push(
    error('Invalid value for variable', `${message}\n\nThis was checked by the validation rule at ${rangeString(rule.range)}.`, valueRange, {
      values: expressionValues(cond, scope),
    }),
  );
  return diags;
}
