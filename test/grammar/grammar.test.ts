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

test('nested interpolation: strings inside interpolations inside strings, objects in templates', () =>
  check('v = "a-${join("-", ["x${var.y}", "z"])}-${ {k = 1}.k }-end"\n', [
    ['a-', 'string.quoted.double.terraform'],
    ['${', 'punctuation.section.interpolation.begin.terraform'],
    ['join', 'support.function.terraform'],
    ['-', 'string.quoted.double.terraform'],
    ['x', 'string.quoted.double.terraform'],
    ['${', 'punctuation.section.interpolation.begin.terraform'],
    ['var', 'variable.language.terraform'],
    ['y', 'variable.other.member.terraform'],
    ['}', 'punctuation.section.interpolation.end.terraform'],
    ['z', 'string.quoted.double.terraform'],
    ['}', 'punctuation.section.interpolation.end.terraform'],
    ['${', 'punctuation.section.interpolation.begin.terraform'],
    ['k', 'variable.other.property.terraform'],
    ['1', 'constant.numeric.integer.terraform'],
    ['-end', 'string.quoted.double.terraform !meta.interpolation'],
  ]));

test('template directives with strip markers, nested for/if and escapes', () =>
  check('t = <<-EOT\n  %{~ for i, s in var.list ~}\n  %{ if i > 0 }, %{ endif }${s}%%{not}\n  %{~ endfor ~}\n  EOT\nafter = true\n', [
    ['%{', 'punctuation.section.directive.begin.terraform'],
    ['~', 'keyword.operator.template.trim.terraform'],
    ['for', 'keyword.control.terraform'],
    ['in', 'keyword.control.terraform'],
    ['~', 'keyword.operator.template.trim.terraform'],
    ['if', 'keyword.control.terraform'],
    ['>', 'keyword.operator.comparison.terraform'],
    ['endif', 'keyword.control.terraform'],
    ['s', 'variable.other.readwrite.terraform'],
    ['%%{', 'constant.character.escape.terraform'],
    ['endfor', 'keyword.control.terraform'],
    ['EOT', 'keyword.control.heredoc.terraform'],
    ['after', 'variable.other.property.terraform !string.unquoted.heredoc.terraform'],
    ['true', 'constant.language.boolean.terraform'],
  ]));

test('heredocs: comment and string markers inside are text; the marker must stand alone to close', () =>
  check('h = <<EOT\n# not a comment\n"not a string" /* nor this */ EOT\n  EOT is text too\nEOT\nx = 1\n', [
    ['# not a comment', 'string.unquoted.heredoc.terraform !comment'],
    ['"not a string" /* nor this */ EOT', 'string.unquoted.heredoc.terraform !comment !string.quoted'],
    ['EOT is text too', 'string.unquoted.heredoc.terraform'],
    ['EOT', 'keyword.control.heredoc.terraform'],
    ['x', 'variable.other.property.terraform !string.unquoted.heredoc.terraform'],
  ]));

test('strings: escapes, and comment or directive look-alikes inside them', () =>
  check('s = "q\\"uote \\\\ \\u00e9 \\U0001F600 # // /* %%{ $${"\nn = 2\n', [
    ['\\"', 'constant.character.escape.terraform'],
    ['\\\\', 'constant.character.escape.terraform'],
    ['\\u00e9', 'constant.character.escape.terraform'],
    ['\\U0001F600', 'constant.character.escape.terraform'],
    ['%%{', 'constant.character.escape.terraform'],
    ['$${', 'constant.character.escape.terraform'],
    ['n', 'variable.other.property.terraform !string.quoted.double.terraform'],
  ]));

test('numbers: integers, decimals, exponents with signs', () =>
  check('a = [0, 42, 3.14, 1e3, 1E+3, 2.5e-10, -7]\n', [
    ['0', 'constant.numeric.integer.terraform'],
    ['42', 'constant.numeric.integer.terraform'],
    ['3.14', 'constant.numeric.float.terraform'],
    ['1e3', 'constant.numeric.float.terraform'],
    ['1E+3', 'constant.numeric.float.terraform'],
    ['2.5e-10', 'constant.numeric.float.terraform'],
    ['-', 'keyword.operator.arithmetic.terraform'],
    ['7', 'constant.numeric.integer.terraform'],
  ]));

test('every comparison and arithmetic operator', () =>
  check('v = a < b && c <= d && e > f && g >= h && i == j && k != l && m - n > o % p\n', [
    ['<', 'keyword.operator.comparison.terraform'],
    ['<=', 'keyword.operator.comparison.terraform'],
    ['>', 'keyword.operator.comparison.terraform'],
    ['>=', 'keyword.operator.comparison.terraform'],
    ['==', 'keyword.operator.comparison.terraform'],
    ['!=', 'keyword.operator.comparison.terraform'],
    ['-', 'keyword.operator.arithmetic.terraform'],
    ['>', 'keyword.operator.comparison.terraform'],
    ['%', 'keyword.operator.arithmetic.terraform'],
  ]));

test('dynamic blocks, one-line blocks, and index access with strings', () =>
  check('resource "x" "y" {\n  dynamic "rule" {\n    for_each = var.rules\n    content { port = rule.value["port"] }\n  }\n}\nvariable "v" { type = map(string) }\n', [
    ['dynamic', 'entity.name.type.terraform'],
    ['rule', 'entity.name.label.terraform'],
    ['for_each', 'variable.other.property.terraform'],
    ['content', 'entity.name.type.terraform'],
    ['port', 'variable.other.property.terraform'],
    ['rule', 'variable.other.readwrite.terraform'],
    ['value', 'variable.other.member.terraform'],
    ['port', 'string.quoted.double.terraform'],
    ['variable', 'entity.name.type.terraform'],
    ['type', 'variable.other.property.terraform'],
    ['map', 'support.function.terraform'],
    ['string', 'variable.other.readwrite.terraform'],
  ]));

// The corpus: every .tf file of the example workspace and of the recorded test data (test/data/**) tokenizes
// back to the top-level state at its end (no string, heredoc, comment or block left open). Files whose path
// says they hold syntax errors on purpose are left out.
test('the corpus of real configurations tokenizes back to the top level at the end of each file', async () => {
  const { readdirSync, statSync } = await import('node:fs');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.tf') || p.endsWith('.tfvars')) files.push(p);
    }
  };
  walk(join(root, 'examples'));
  walk(join(root, 'test/data'));
  assert.ok(files.length > 100, `a real corpus (${files.length} files)`);
  const g = await grammar();
  const open: string[] = [];
  let checked = 0;
  // The state after a blank line at the top level (the grammar's root scope pushed once).
  const top = g.tokenizeLine('', vsctm.INITIAL).ruleStack;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    // Files recorded to show syntax errors are meant to be broken.
    if (/error|invalid|unclosed|unterminated|broken|bad|syntax/i.test(f)) continue;
    let stack = vsctm.INITIAL;
    for (const line of text.split('\n')) stack = g.tokenizeLine(line, stack).ruleStack;
    if (!stack.equals(top)) open.push(f.slice(root.length + 1));
    checked++;
  }
  assert.ok(checked > 100, `${checked} files checked`);
  assert.deepEqual(open, [], 'files whose end is still inside a string, heredoc, comment or block');
});
