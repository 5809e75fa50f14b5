// The TextMate grammar (syntaxes/terraform.tmLanguage.json) tokenized with VS Code's own engine
// (vscode-textmate + the oniguruma WebAssembly build). Each case is a sample and the scopes that given
// pieces of it must carry; check() tokenizes the sample and finds each piece among the tokens.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

const root = process.cwd();
let grammarPromise: Promise<vsctm.IGrammar> | undefined;

function grammar(): Promise<vsctm.IGrammar> {
  grammarPromise ??= (async () => {
    const wasm = readFileSync(join(root, 'node_modules/vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM({ data: wasm });
    const registry = new vsctm.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (sources: string[]) => oniguruma.createOnigScanner(sources),
        createOnigString: (s: string) => oniguruma.createOnigString(s),
      }),
      loadGrammar: async (scopeName: string) => {
        if (scopeName !== 'source.terraform') return null;
        const text = readFileSync(join(root, 'syntaxes/terraform.tmLanguage.json'), 'utf8');
        return vsctm.parseRawGrammar(text, 'terraform.tmLanguage.json');
      },
    });
    const g = await registry.loadGrammar('source.terraform');
    if (!g) throw new Error('grammar did not load');
    return g;
  })();
  return grammarPromise;
}

interface Token {
  line: number;
  text: string;
  scopes: string[];
}

async function tokenize(src: string): Promise<Token[]> {
  const g = await grammar();
  let stack = vsctm.INITIAL;
  const out: Token[] = [];
  src.split('\n').forEach((line, i) => {
    const r = g.tokenizeLine(line, stack);
    for (const t of r.tokens) out.push({ line: i, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    stack = r.ruleStack;
  });
  return out;
}

/**
 * Asserts, for each [text, scope] pair in order, that the next token (after the previous match) whose text
 * is `text` (trimmed) has a scope starting with `scope`. `scope` may list several space-separated scopes,
 * all required; one prefixed with '!' must be absent.
 */
async function check(src: string, expected: [string, string][]): Promise<void> {
  const tokens = await tokenize(src);
  let from = 0;
  for (const [text, scope] of expected) {
    const i = tokens.findIndex((t, k) => k >= from && t.text.trim() === text);
    assert.ok(i >= 0, `no token ${JSON.stringify(text)} after token ${from} in:\n${dump(tokens)}`);
    for (const want of scope.split(' ')) {
      const has = tokens[i].scopes.some((s) => s.startsWith(want.replace(/^!/, '')));
      assert.equal(has, !want.startsWith('!'), `${JSON.stringify(text)} on line ${tokens[i].line + 1}: expected ${want}, got ${tokens[i].scopes.join(' ')}`);
    }
    from = i + 1;
  }
}

function dump(tokens: Token[]): string {
  return tokens.map((t) => `${t.line + 1} ${JSON.stringify(t.text)} ${t.scopes.slice(1).join(' ')}`).join('\n');
}

test('blocks: type, quoted and bare labels, braces', () =>
  check('resource "terraform_data" "web" {\n}\nlocals {}\nmodule net {\n}\n', [
    ['resource', 'entity.name.type.terraform'],
    ['"', 'punctuation.definition.string.begin.terraform'],
    ['terraform_data', 'entity.name.label.terraform'],
    ['web', 'entity.name.label.terraform'],
    ['{', 'punctuation.section.block.begin.terraform'],
    ['}', 'punctuation.section.block.end.terraform'],
    ['locals', 'entity.name.type.terraform'],
    ['module', 'entity.name.type.terraform'],
    ['net', 'entity.name.label.terraform'],
  ]));

test('attributes and nested blocks inside a block', () =>
  check('resource "a" "b" {\n  count = 2\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n', [
    ['count', 'variable.other.property.terraform'],
    ['=', 'keyword.operator.assignment.terraform'],
    ['2', 'constant.numeric.integer.terraform'],
    ['lifecycle', 'entity.name.type.terraform'],
    ['create_before_destroy', 'variable.other.property.terraform'],
    ['true', 'constant.language.boolean.terraform'],
  ]));

test('strings with escapes, interpolation and template directives', () =>
  check('x = "a\\n${var.name}-$${lit} %{ if var.on ~}yes%{ else }no%{ endif }"\n', [
    ['x', 'variable.other.property.terraform'],
    ['"', 'string.quoted.double.terraform'],
    ['\\n', 'constant.character.escape.terraform'],
    ['${', 'punctuation.section.interpolation.begin.terraform'],
    ['var', 'variable.language.terraform'],
    ['name', 'variable.other.member.terraform'],
    ['}', 'punctuation.section.interpolation.end.terraform'],
    ['$${', 'constant.character.escape.terraform'],
    ['lit}', 'string.quoted.double.terraform'],
    ['%{', 'punctuation.section.directive.begin.terraform'],
    ['if', 'keyword.control.terraform'],
    ['on', 'variable.other.member.terraform'],
    ['~', 'keyword.operator.template.trim.terraform'],
    ['yes', 'string.quoted.double.terraform'],
    ['else', 'keyword.control.terraform'],
    ['no', 'string.quoted.double.terraform'],
    ['endif', 'keyword.control.terraform'],
  ]));

test('heredocs, plain and indented, with interpolation', () =>
  check('a = <<EOT\nhello ${local.who}\nEOT\nb = <<-EOF\n  %{ for x in y }${x}%{ endfor }\n  EOF\nc = 1\n', [
    ['<<', 'keyword.operator.heredoc.terraform'],
    ['EOT', 'keyword.control.heredoc.terraform'],
    ['hello', 'string.unquoted.heredoc.terraform'],
    ['local', 'variable.language.terraform'],
    ['EOT', 'keyword.control.heredoc.terraform'],
    ['<<-', 'keyword.operator.heredoc.terraform'],
    ['for', 'keyword.control.terraform'],
    ['in', 'keyword.control.terraform'],
    ['endfor', 'keyword.control.terraform'],
    ['EOF', 'keyword.control.heredoc.terraform'],
    ['c', 'variable.other.property.terraform !string.unquoted.heredoc.terraform'],
  ]));

test('comments of all three kinds', () =>
  check('# hash\n// slashes\n/* block\n still */ x = 1 # tail\n', [
    ['#', 'comment.line.number-sign.terraform'],
    ['hash', 'comment.line.number-sign.terraform'],
    ['//', 'comment.line.double-slash.terraform'],
    ['/*', 'comment.block.terraform'],
    ['still', 'comment.block.terraform'],
    ['*/', 'punctuation.definition.comment.terraform'],
    ['1', 'constant.numeric.integer.terraform'],
    ['tail', 'comment.line.number-sign.terraform'],
  ]));

test('numbers, literals and operators', () =>
  check('v = 1.5e3 + 2 * -3 / 4 % 5 == 6 && !false || null != 7 ? 8 : 0.25 >= 1\n', [
    ['1.5e3', 'constant.numeric.float.terraform'],
    ['+', 'keyword.operator.arithmetic.terraform'],
    ['*', 'keyword.operator.arithmetic.terraform'],
    ['==', 'keyword.operator.comparison.terraform'],
    ['&&', 'keyword.operator.logical.terraform'],
    ['!', 'keyword.operator.logical.terraform'],
    ['false', 'constant.language.boolean.terraform'],
    ['||', 'keyword.operator.logical.terraform'],
    ['null', 'constant.language.null.terraform'],
    ['!=', 'keyword.operator.comparison.terraform'],
    ['?', 'keyword.operator.conditional.terraform'],
    [':', 'keyword.operator.conditional.terraform'],
    ['0.25', 'constant.numeric.float.terraform'],
    ['>=', 'keyword.operator.comparison.terraform'],
  ]));

test('function calls, provider functions and expansion', () =>
  check('v = join(",", [for s in var.list : upper(s) if s != ""])\nw = provider::aws::arn_parse(x)\nz = max(var.n...)\n', [
    ['join', 'support.function.terraform'],
    ['(', 'punctuation.section.parens.begin.terraform'],
    ['[', 'punctuation.section.brackets.begin.terraform'],
    ['for', 'keyword.control.terraform'],
    ['in', 'keyword.control.terraform'],
    ['list', 'variable.other.member.terraform'],
    ['upper', 'support.function.terraform'],
    ['if', 'keyword.control.terraform'],
    ['provider::aws::arn_parse', 'support.function.terraform'],
    ['max', 'support.function.terraform'],
    ['...', 'keyword.operator.ellipsis.terraform'],
  ]));

test('references: roots, attributes, indexes and splats', () =>
  check('v = [data.terraform_data.x[0].output, each.key, count.index, module.m.out[*].id, local.l.*.a, path.module, foo]\n', [
    ['data', 'variable.language.terraform'],
    ['terraform_data', 'variable.other.member.terraform'],
    ['0', 'constant.numeric.integer.terraform'],
    ['output', 'variable.other.member.terraform'],
    ['each', 'variable.language.terraform'],
    ['key', 'variable.other.member.terraform'],
    ['count', 'variable.language.terraform'],
    ['module', 'variable.language.terraform'],
    ['*', 'keyword.operator.splat.terraform'],
    ['local', 'variable.language.terraform'],
    ['*', 'keyword.operator.splat.terraform'],
    ['path', 'variable.language.terraform'],
    ['foo', 'variable.other.readwrite.terraform'],
  ]));

test('objects: keys with =, inline objects, for expressions with =>', () =>
  check('tags = {\n  Name = "x"\n  "k" = 1\n  inline = { a = 1, b = 2 }\n}\nm = { for k, v in var.m : k => v }\n', [
    ['Name', 'variable.other.property.terraform'],
    ['inline', 'variable.other.property.terraform'],
    ['a', 'variable.other.property.terraform'],
    ['b', 'variable.other.property.terraform'],
    ['}', 'punctuation.section.braces.end.terraform'],
    ['m', 'variable.other.property.terraform'],
    ['for', 'keyword.control.terraform'],
    ['=>', 'keyword.operator.arrow.terraform'],
  ]));

test('a tfvars file: top-level attributes with lists and maps', () =>
  check('region = "eu-west-1"\nzones  = ["a", "b"]\nsizes  = { small = 1 }\n', [
    ['region', 'variable.other.property.terraform'],
    ['eu-west-1', 'string.quoted.double.terraform'],
    ['zones', 'variable.other.property.terraform'],
    ['a', 'string.quoted.double.terraform'],
    ['small', 'variable.other.property.terraform'],
  ]));
