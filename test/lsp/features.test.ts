// Editing features of the language server (issue 7 §3) over a real stdio connection to dist/server.js:
// completion, signature help, definition, references, prepareRename/rename (with the moved block), workspace
// symbols, folding ranges, semantic tokens and code actions, each asserted exactly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  CodeAction,
  CompletionList,
  Diagnostic,
  FoldingRange,
  Location,
  SemanticTokens,
  SignatureHelp,
  SymbolInformation,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import { TestClient } from './client';

interface Ws {
  dir: string;
  uri(name: string): string;
  done(): void;
}

function workspace(files: Record<string, string>): Ws {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-features-'));
  for (const [n, t] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, n)), { recursive: true });
    writeFileSync(join(dir, n), t);
  }
  return { dir, uri: (n) => pathToFileURL(join(dir, n)).href, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const MAIN = [
  'variable "region" {', //                                             0
  '  type        = string',
  '  description = "Where things go"',
  '}',
  '',
  'locals {', //                                                        5
  '  prefix = "app"',
  '}',
  '',
  'resource "random_string" "suffix" {',
  '  length = 8', //                                                    10
  '}',
  '',
  'module "net" {',
  '  source = "./net"',
  '  cidr   = var.region', //                                          15
  '}',
  '',
  'output "id" {',
  '  value = "${local.prefix}-${random_string.suffix.result}-${module.net.vpc}"',
  '}', //                                                               20
  '',
].join('\n');

const NET_VARIABLES = 'variable "cidr" {\n  type = string\n}\n\nvariable "zones" {\n  type    = number\n  default = 2\n}\n';
const NET_OUTPUTS = 'output "vpc" {\n  value = var.cidr\n}\n';

const FIXTURE = { 'main.tf': MAIN, 'net/variables.tf': NET_VARIABLES, 'net/outputs.tf': NET_OUTPUTS };

const pos = (line: number, character: number) => ({ line, character });
const range = (l1: number, c1: number, l2: number, c2: number) => ({ start: pos(l1, c1), end: pos(l2, c2) });

async function session(files: Record<string, string>, fn: (c: TestClient, ws: Ws) => Promise<void>, open: string[] = ['main.tf']): Promise<void> {
  const ws = workspace(files);
  const c = new TestClient();
  try {
    await c.conn.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(ws.dir).href, capabilities: {}, initializationOptions: { debounceMs: 10 } });
    await c.conn.sendNotification('initialized', {});
    for (const f of open) await c.open(ws.uri(f), files[f]);
    await fn(c, ws);
    assert.ok(c.alive, 'the server is still running');
    const mine = /^(completion|signatureHelp|definition|references|prepareRename|rename|workspaceSymbol|foldingRange|semanticTokens|semanticTokens\/range|codeAction) failed: /;
    assert.deepEqual(c.logs.filter((l) => mine.test(l)), [], 'no editing handler failed');
  } finally {
    await c.stop();
    ws.done();
  }
}

/** Applies an edit to the document in the client (full text) and returns the new text. */
async function edit(c: TestClient, uri: string, version: number, text: string): Promise<void> {
  await c.change(uri, version, [{ text }]);
}

function completion(c: TestClient, uri: string, line: number, character: number): Promise<CompletionList> {
  return c.request<CompletionList>('textDocument/completion', { textDocument: { uri }, position: pos(line, character) });
}

const labels = (l: CompletionList) => l.items.map((i) => i.label);
const item = (l: CompletionList, label: string) => l.items.find((i) => i.label === label);
const bySortText = (l: CompletionList) => [...l.items].sort((a, b) => ((a.sortText ?? a.label) < (b.sortText ?? b.label) ? -1 : 1)).map((i) => i.label);

test('capabilities: the editing features are announced, with a standard semantic-token legend', async () => {
  const c = new TestClient();
  try {
    const init = await c.initialize();
    const caps = init.capabilities;
    assert.deepEqual(caps.completionProvider, { triggerCharacters: ['.', '"', '='], resolveProvider: false });
    assert.deepEqual(caps.signatureHelpProvider, { triggerCharacters: ['(', ','], retriggerCharacters: [','] });
    assert.equal(caps.definitionProvider, true);
    assert.equal(caps.referencesProvider, true);
    assert.deepEqual(caps.renameProvider, { prepareProvider: true });
    assert.equal(caps.workspaceSymbolProvider, true);
    assert.equal(caps.foldingRangeProvider, true);
    assert.deepEqual(caps.semanticTokensProvider, {
      legend: {
        tokenTypes: ['keyword', 'type', 'variable', 'property', 'function', 'namespace', 'parameter', 'number', 'comment'],
        tokenModifiers: ['declaration', 'defaultLibrary', 'readonly'],
      },
      full: true,
      range: true,
    });
    assert.deepEqual(caps.codeActionProvider, { codeActionKinds: ['quickfix'] });
    assert.equal(caps.documentRangeFormattingProvider, true);
  } finally {
    await c.stop();
  }
});

test('completion: top-level block types with snippets', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    const l = await completion(c, main, 12, 0);
    assert.deepEqual(labels(l), ['resource', 'data', 'ephemeral', 'variable', 'output', 'locals', 'module', 'provider', 'terraform', 'moved', 'import', 'removed', 'check']);
    assert.deepEqual(item(l, 'resource'), {
      label: 'resource',
      kind: 9,
      detail: 'block',
      documentation: 'A managed resource.',
      textEdit: { range: range(12, 0, 12, 0), newText: 'resource "${1:type}" "${2:name}" {\n\t$0\n}' },
      insertTextFormat: 2,
    });
    assert.equal(item(l, 'moved')?.textEdit?.newText, 'moved {\n\t$0\n}');
    // A partly typed name is replaced as a whole.
    const text = MAIN.replace('\n\nmodule', '\n\nmod\n\nmodule');
    await edit(c, main, 2, text);
    const l2 = await completion(c, main, 13, 3);
    assert.deepEqual(item(l2, 'module')?.textEdit, { range: range(13, 0, 13, 3), newText: 'module "${1:name}" {\n\t$0\n}' });
  });
});

test('completion: a resource body offers the schema arguments (required first, with type, flags, docs) and meta-arguments', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    await edit(c, main, 2, MAIN.replace('  length = 8\n', '  length = 8\n  \n'));
    const l = await completion(c, main, 11, 2);
    assert.deepEqual(bySortText(l), [
      'length',
      'keepers', 'lower', 'min_lower', 'min_numeric', 'min_special', 'min_upper', 'number', 'numeric', 'override_special', 'special', 'upper',
      'connection', 'count', 'depends_on', 'dynamic', 'for_each', 'lifecycle', 'provider', 'provisioner',
    ]);
    assert.deepEqual(item(l, 'length'), {
      label: 'length',
      kind: 10,
      detail: 'number, required',
      documentation: {
        kind: 'markdown',
        value: 'The length of the string desired. The minimum value for length is 1 and, length must also be >= (`min_upper` + `min_lower` + `min_numeric` + `min_special`).',
      },
      sortText: '0length',
      textEdit: { range: range(11, 2, 11, 2), newText: 'length = $0' },
      insertTextFormat: 2,
    });
    assert.equal(item(l, 'number')?.detail, 'bool, optional, deprecated');
    assert.deepEqual(item(l, 'number')?.tags, [1]);
    assert.equal(item(l, 'lifecycle')?.textEdit?.newText, 'lifecycle {\n\t$0\n}');
    assert.equal(item(l, 'dynamic')?.textEdit?.newText, 'dynamic "${1:name}" {\n\t$0\n}');
    assert.equal(item(l, 'result'), undefined, 'computed-only attributes are not arguments');

    // Inside lifecycle: its own arguments.
    await edit(c, main, 3, MAIN.replace('  length = 8\n', '  length = 8\n  lifecycle {\n    \n  }\n'));
    const lc = await completion(c, main, 12, 4);
    assert.deepEqual(labels(lc), ['create_before_destroy', 'prevent_destroy', 'ignore_changes', 'replace_triggered_by', 'precondition', 'postcondition']);
  });
});

test('completion: nested blocks of a schema, directly and through dynamic blocks', async () => {
  const files = {
    'main.tf': 'resource "tls_cert_request" "r" {\n  subject {\n    \n  }\n  dynamic "subject" {\n    for_each = []\n    content {\n      \n    }\n  }\n}\n',
  };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const subject = ['common_name', 'country', 'locality', 'organization', 'organizational_unit', 'postal_code', 'province', 'serial_number', 'street_address'];
    const direct = await completion(c, uri, 2, 4);
    assert.deepEqual(labels(direct), subject);
    assert.deepEqual(item(direct, 'street_address'), {
      label: 'street_address',
      kind: 10,
      detail: 'list of string, optional',
      documentation: { kind: 'markdown', value: 'Distinguished name: `STREET`' },
      sortText: '1street_address',
      textEdit: { range: range(2, 4, 2, 4), newText: 'street_address = $0' },
      insertTextFormat: 2,
    });
    assert.deepEqual(labels(await completion(c, uri, 7, 6)), subject);
    const top = await completion(c, uri, 3, 3);
    assert.equal(item(top, 'subject')?.detail, 'block, list');
  });
});

test('completion: resource and data source types in block labels come from the provider schemas', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    await edit(c, main, 2, MAIN.replace('\n\nmodule', '\n\nresource "random_\n\nmodule'));
    const l = await completion(c, main, 13, 17);
    const random = labels(l).filter((x) => x.startsWith('random_'));
    assert.deepEqual(random, ['random_bytes', 'random_id', 'random_integer', 'random_password', 'random_pet', 'random_shuffle', 'random_string', 'random_uuid']);
    assert.deepEqual(
      { ...item(l, 'random_pet'), documentation: undefined },
      { label: 'random_pet', kind: 7, detail: 'random', textEdit: { range: range(13, 10, 13, 17), newText: 'random_pet' }, documentation: undefined },
    );
    assert.ok(labels(l).includes('terraform_data') && labels(l).includes('tls_private_key') && labels(l).includes('null_resource'));
    assert.ok(!labels(l).includes('http'), 'data sources are not resource types');
    await edit(c, main, 3, MAIN.replace('\n\nmodule', '\n\ndata "h\n\nmodule'));
    const d = await completion(c, main, 13, 7);
    assert.deepEqual(item(d, 'http')?.textEdit, { range: range(13, 6, 13, 7), newText: 'http' });
    assert.equal(item(d, 'http')?.detail, 'http');
  });
});

test('completion: references after var., local., module., module.x., a resource type and name, path.', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    const at = async (expr: string, version: number): Promise<CompletionList> => {
      const line = `  description = ${expr}`;
      await edit(c, main, version, MAIN.replace('-${module.net.vpc}"\n', `-\${module.net.vpc}"\n${line}\n`));
      return completion(c, main, 20, line.length);
    };
    assert.deepEqual((await at('var.', 2)).items, [
      { label: 'region', kind: 6, detail: 'string', documentation: 'Where things go', textEdit: { range: range(20, 20, 20, 20), newText: 'region' } },
    ]);
    assert.deepEqual((await at('local.pr', 3)).items, [
      { label: 'prefix', kind: 6, detail: '"app"', textEdit: { range: range(20, 22, 20, 24), newText: 'prefix' } },
    ]);
    assert.deepEqual(labels(await at('module.', 4)), ['net']);
    assert.deepEqual((await at('module.net.', 5)).items, [
      { label: 'vpc', kind: 5, detail: 'output', textEdit: { range: range(20, 27, 20, 27), newText: 'vpc' } },
    ]);
    assert.deepEqual(labels(await at('random_string.', 6)), ['suffix']);
    const attrs = await at('random_string.suffix.', 7);
    assert.deepEqual(labels(attrs), [
      'id', 'keepers', 'length', 'lower', 'min_lower', 'min_numeric', 'min_special', 'min_upper', 'number', 'numeric', 'override_special', 'result', 'special', 'upper',
    ]);
    assert.equal(item(attrs, 'result')?.detail, 'string, computed');
    assert.deepEqual(labels(await at('path.', 8)), ['cwd', 'module', 'root']);
    assert.deepEqual(labels(await at('"${terraform.', 9)), ['workspace']);
  });
});

test('completion: data., each., count. and self. where they apply', async () => {
  const base = [
    'data "http" "page" {', //                                  0
    '  url = "https://example.com"',
    '}',
    '',
    'resource "random_id" "each" {',
    '  for_each    = toset(["a"])', //                           5
    '  byte_length = 4',
    '  keepers     = { k = X }',
    '}',
    '',
    'resource "random_id" "counted" {', //                       10
    '  count       = 2',
    '  byte_length = 4',
    '  keepers     = { k = X }',
    '  provisioner "local-exec" {',
    '    command = X', //                                        15
    '  }',
    '}',
    '',
  ].join('\n');
  await session({ 'main.tf': base }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    let version = 1;
    const at = async (line: number, expr: string): Promise<CompletionList> => {
      const lines = base.split('\n');
      const col = lines[line].indexOf('X');
      lines[line] = lines[line].replace('X', expr);
      await edit(c, uri, ++version, lines.join('\n'));
      return completion(c, uri, line, col + expr.length);
    };
    assert.deepEqual((await at(7, 'data.')).items.map((i) => [i.label, i.detail]), [['http', 'data source type']]);
    assert.deepEqual(labels(await at(7, 'data.http.')), ['page']);
    const attrs = await at(7, 'data.http.page.');
    assert.ok(labels(attrs).includes('response_body') && labels(attrs).includes('url'));
    assert.equal(item(attrs, 'response_body')?.detail, 'string, computed');
    assert.deepEqual(labels(await at(7, 'each.')), ['key', 'value']);
    assert.deepEqual(labels(await at(13, 'each.')), [], 'no for_each here');
    assert.deepEqual((await at(13, 'count.')).items.map((i) => [i.label, i.detail]), [['index', 'number: the index of this instance']]);
    assert.deepEqual(labels(await at(7, 'count.')), [], 'no count here');
    const self = await at(15, 'self.');
    assert.deepEqual(labels(self), ['b64_std', 'b64_url', 'byte_length', 'dec', 'hex', 'id', 'keepers', 'prefix']);
    const roots = await at(15, '');
    assert.ok(labels(roots).includes('self') && labels(roots).includes('count') && !labels(roots).includes('each'));
  });
});

test('completion: functions with signatures, reference roots, resource types and literals', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    await edit(c, main, 2, MAIN.replace('  prefix = "app"\n', '  prefix = "app"\n  extra = up\n'));
    const l = await completion(c, main, 7, 12);
    assert.deepEqual(bySortText(l).slice(0, 7), ['var', 'local', 'module', 'data', 'path', 'terraform', 'random_string']);
    assert.deepEqual(item(l, 'upper'), {
      label: 'upper',
      kind: 3,
      detail: 'upper(str string) string',
      sortText: '3upper',
      textEdit: { range: range(7, 10, 7, 12), newText: 'upper($0)' },
      insertTextFormat: 2,
    });
    assert.equal(item(l, 'join')?.detail, 'join(separator string, ...lists list of string) string');
    assert.deepEqual(bySortText(l).slice(-3), ['false', 'null', 'true']);
    assert.equal(item(l, 'each'), undefined, 'each is offered only in a block with for_each');
    await edit(c, main, 3, MAIN.replace('  prefix = "app"\n', '  prefix = "app" # var.\n  /* up\n'));
    assert.deepEqual((await completion(c, main, 6, 23)).items, [], 'nothing inside a line comment');
    assert.deepEqual((await completion(c, main, 7, 7)).items, [], 'nothing inside a block comment');
  });
});

test('completion: enum-like values that an attribute\'s schema lists, and the variables of a local module', async () => {
  const files = {
    'main.tf': 'resource "tls_private_key" "k" {\n  algorithm = E\n}\n\nresource "tls_private_key" "q" {\n  algorithm = "E"\n}\n\nmodule "net" {\n  source = "./net"\n  \n}\n',
    'net/variables.tf': NET_VARIABLES,
  };
  await session(files, async (c, ws) => {
    const main = ws.uri('main.tf');
    const bare = await completion(c, main, 1, 15);
    assert.deepEqual(bySortText(bare).slice(0, 3), ['"ECDSA"', '"ED25519"', '"RSA"']);
    assert.deepEqual(item(bare, '"RSA"'), { label: '"RSA"', kind: 20, detail: 'allowed value of algorithm', sortText: '0RSA', textEdit: { range: range(1, 14, 1, 15), newText: '"RSA"' } });
    const quoted = await completion(c, main, 5, 16);
    assert.deepEqual(quoted.items, [
      { label: 'RSA', kind: 20, detail: 'allowed value of algorithm', textEdit: { range: range(5, 15, 5, 16), newText: 'RSA' } },
      { label: 'ECDSA', kind: 20, detail: 'allowed value of algorithm', textEdit: { range: range(5, 15, 5, 16), newText: 'ECDSA' } },
      { label: 'ED25519', kind: 20, detail: 'allowed value of algorithm', textEdit: { range: range(5, 15, 5, 16), newText: 'ED25519' } },
    ]);
    const mod = await completion(c, main, 10, 2);
    assert.deepEqual(bySortText(mod), ['cidr', 'source', 'zones', 'count', 'depends_on', 'for_each', 'providers', 'version']);
    assert.deepEqual(item(mod, 'cidr'), { label: 'cidr', kind: 10, detail: 'string, required', sortText: '0cidr', textEdit: { range: range(10, 2, 10, 2), newText: 'cidr = $0' }, insertTextFormat: 2 });
    assert.equal(item(mod, 'zones')?.detail, 'number, optional');
  });
});

test('completion: required_providers entries for the providers Foresight carries', async () => {
  await session({ 'main.tf': 'terraform {\n  required_providers {\n    \n  }\n}\n' }, async (c, ws) => {
    const l = await completion(c, ws.uri('main.tf'), 2, 4);
    assert.deepEqual(labels(l), ['archive', 'http', 'local', 'null', 'random', 'terraform', 'time', 'tls']);
    assert.deepEqual(item(l, 'random'), {
      label: 'random',
      kind: 9,
      detail: 'hashicorp/random 3.7.2',
      textEdit: { range: range(2, 4, 2, 4), newText: 'random = {\n\tsource  = "hashicorp/random"\n\tversion = "3.7.2"\n}' },
      insertTextFormat: 2,
    });
    assert.equal(item(l, 'terraform')?.textEdit?.newText, 'terraform = {\n\tsource = "terraform.io/builtin/terraform"\n}');
  });
});

test('completion and definition of a resource\'s provider configuration', async () => {
  const files = {
    'main.tf': 'provider "random" {}\n\nprovider "random" {\n  alias = "eu"\n}\n\nresource "random_id" "a" {\n  byte_length = 4\n  provider    = random.eu\n}\n\nresource "random_id" "b" {\n  byte_length = 4\n  provider    = \n}\n',
  };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const l = await completion(c, uri, 13, 16);
    assert.deepEqual(bySortText(l).slice(0, 2), ['random', 'random.eu']);
    assert.deepEqual(item(l, 'random.eu'), { label: 'random.eu', kind: 9, detail: 'provider configuration', sortText: '0random.eu', textEdit: { range: range(13, 16, 13, 16), newText: 'random.eu' } });
    assert.deepEqual(await c.request('textDocument/definition', { textDocument: { uri }, position: pos(8, 23) }), [{ uri, range: range(2, 10, 2, 16) }]);
  });
});

test('completion: type constraints in a variable\'s type', async () => {
  await session({ 'main.tf': 'variable "v" {\n  type = \n}\n' }, async (c, ws) => {
    const l = await completion(c, ws.uri('main.tf'), 1, 9);
    assert.deepEqual(labels(l), ['string', 'number', 'bool', 'list', 'set', 'map', 'object', 'tuple', 'optional', 'any']);
    assert.deepEqual(item(l, 'map'), { label: 'map', kind: 25, detail: 'a map from strings to values of one type', sortText: '05', textEdit: { range: range(1, 9, 1, 9), newText: 'map(${1:string})' }, insertTextFormat: 2 });
  });
});

test('signature help: the function, its parameters and the active one', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    await edit(c, main, 2, MAIN.replace('  prefix = "app"\n', '  prefix = "app"\n  extra = join(",", [upper(var.region), ])\n'));
    const help = (ch: number) => c.request<SignatureHelp | null>('textDocument/signatureHelp', { textDocument: { uri: main }, position: pos(7, ch) });
    assert.deepEqual(await help(19), {
      signatures: [{ label: 'join(separator string, ...lists list of string) string', parameters: [{ label: [5, 21] }, { label: [23, 46] }] }],
      activeSignature: 0,
      activeParameter: 1,
    });
    assert.deepEqual(await help(15), { ...(await help(19))!, activeParameter: 0 });
    // Inside upper(...), nested in join's tuple.
    assert.deepEqual(await help(27), { signatures: [{ label: 'upper(str string) string', parameters: [{ label: [6, 16] }] }], activeSignature: 0, activeParameter: 0 });
    assert.equal(await help(8), null, 'outside any call');
  });
});

test('definition: variables, locals, resources, module calls, and into local modules', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    const def = (line: number, ch: number) => c.request<Location[]>('textDocument/definition', { textDocument: { uri: main }, position: pos(line, ch) });
    assert.deepEqual(await def(15, 17), [{ uri: main, range: range(0, 10, 0, 16) }], 'var.region');
    assert.deepEqual(await def(19, 20), [{ uri: main, range: range(5, 2, 5, 8) }].map((l) => ({ ...l, range: range(6, 2, 6, 8) })), 'local.prefix');
    assert.deepEqual(await def(19, 45), [{ uri: main, range: range(9, 26, 9, 32) }], 'random_string.suffix');
    assert.deepEqual(await def(19, 67), [{ uri: main, range: range(13, 8, 13, 11) }], 'module.net');
    assert.deepEqual(await def(19, 71), [{ uri: ws.uri('net/outputs.tf'), range: range(0, 8, 0, 11) }], 'module.net.vpc → the child output');
    assert.deepEqual(await def(15, 3), [{ uri: ws.uri('net/variables.tf'), range: range(0, 10, 0, 14) }], 'module argument → the child variable');
    assert.deepEqual(await def(19, 57), [], 'a resource attribute has no declaration');
    assert.deepEqual(await def(14, 13), [
      { uri: ws.uri('net/outputs.tf'), range: range(0, 0, 0, 0) },
      { uri: ws.uri('net/variables.tf'), range: range(0, 0, 0, 0) },
    ], 'a local module source → the module\'s files');
  });
});

test('modules installed by terraform init (module manifest) are followed like local ones', async () => {
  const files = {
    'main.tf': 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "5.0.0"\n}\n\noutput "id" {\n  value = module.vpc.vpc_id\n}\n',
    '.terraform/modules/modules.json': '{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"vpc","Source":"registry.terraform.io/terraform-aws-modules/vpc/aws","Version":"5.0.0","Dir":".terraform/modules/vpc"}]}',
    '.terraform/modules/vpc/outputs.tf': 'output "vpc_id" {\n  value = "x"\n}\n',
  };
  await session(files, async (c, ws) => {
    const main = ws.uri('main.tf');
    assert.deepEqual(await c.request('textDocument/definition', { textDocument: { uri: main }, position: pos(6, 22) }), [
      { uri: ws.uri('.terraform/modules/vpc/outputs.tf'), range: range(0, 8, 0, 14) },
    ]);
    await edit(c, main, 2, 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "5.0.0"\n}\n\noutput "id" {\n  value = module.vpc.\n}\n');
    assert.deepEqual(labels(await completion(c, main, 6, 21)), ['vpc_id']);
  });
});

test('references: across the module and into calling modules', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    const refs = (line: number, ch: number, includeDeclaration = true) =>
      c.request<Location[]>('textDocument/references', { textDocument: { uri: main }, position: pos(line, ch), context: { includeDeclaration } });
    assert.deepEqual(await refs(15, 3), [
      { uri: main, range: range(15, 2, 15, 6) },
      { uri: ws.uri('net/outputs.tf'), range: range(1, 14, 1, 18) },
      { uri: ws.uri('net/variables.tf'), range: range(0, 10, 0, 14) },
    ]);
    assert.deepEqual(await refs(0, 12), [{ uri: main, range: range(0, 10, 0, 16) }, { uri: main, range: range(15, 15, 15, 21) }]);
    assert.deepEqual(await refs(0, 12, false), [{ uri: main, range: range(15, 15, 15, 21) }]);
    assert.deepEqual(await refs(19, 71), [
      { uri: main, range: range(19, 71, 19, 74) },
      { uri: ws.uri('net/outputs.tf'), range: range(0, 8, 0, 11) },
    ]);
  });
});

test('rename: a resource, with a moved block so the state follows', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    assert.deepEqual(await c.request('textDocument/prepareRename', { textDocument: { uri: main }, position: pos(19, 45) }), {
      range: range(19, 43, 19, 49),
      placeholder: 'suffix',
    });
    assert.equal(await c.request('textDocument/prepareRename', { textDocument: { uri: main }, position: pos(19, 52) }), null, 'an attribute cannot be renamed');
    const e = await c.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: main }, position: pos(19, 45), newName: 'token' });
    assert.deepEqual(e, {
      changes: {
        [main]: [
          { range: range(9, 26, 9, 32), newText: 'token' },
          { range: range(11, 1, 11, 1), newText: '\n\nmoved {\n  from = random_string.suffix\n  to   = random_string.token\n}' },
          { range: range(19, 43, 19, 49), newText: 'token' },
        ],
      },
    });
  });
});

test('rename: a module call (with a moved block) and a data source (without)', async () => {
  const files = {
    ...FIXTURE,
    'data.tf': 'data "http" "page" {\n  url = "https://example.com"\n}\n\noutput "page" {\n  value = [data.http.page.body, module.net]\n}\n',
  };
  await session(files, async (c, ws) => {
    const main = ws.uri('main.tf');
    const data = ws.uri('data.tf');
    assert.deepEqual(await c.request('textDocument/rename', { textDocument: { uri: main }, position: pos(13, 9), newName: 'network' }), {
      changes: {
        [main]: [
          { range: range(13, 8, 13, 11), newText: 'network' },
          { range: range(16, 1, 16, 1), newText: '\n\nmoved {\n  from = module.net\n  to   = module.network\n}' },
          { range: range(19, 67, 19, 70), newText: 'network' },
        ],
        [data]: [{ range: range(5, 39, 5, 42), newText: 'network' }],
      },
    });
    assert.deepEqual(await c.request('textDocument/rename', { textDocument: { uri: data }, position: pos(5, 20), newName: 'home' }), {
      changes: { [data]: [{ range: range(0, 13, 0, 17), newText: 'home' }, { range: range(5, 21, 5, 25), newText: 'home' }] },
    });
  }, ['main.tf', 'data.tf']);
});

test('completion: the iterator of an enclosing dynamic block', async () => {
  const files = {
    'main.tf': 'resource "tls_cert_request" "r" {\n  dynamic "subject" {\n    for_each = ["a"]\n    content {\n      common_name = subject.\n    }\n  }\n  dynamic "subject" {\n    for_each = ["b"]\n    iterator = s\n    content {\n      common_name = s.\n    }\n  }\n}\n',
  };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    assert.deepEqual((await completion(c, uri, 4, 28)).items, [
      { label: 'key', kind: 5, detail: 'the key or index of the current element of subject', textEdit: { range: range(4, 28, 4, 28), newText: 'key' } },
      { label: 'value', kind: 5, detail: 'the current element of subject', textEdit: { range: range(4, 28, 4, 28), newText: 'value' } },
    ]);
    assert.deepEqual(labels(await completion(c, uri, 11, 22)), ['key', 'value']);
  });
});

test('rename: a variable across the module and the calling module\'s argument; an output; a local; refusals', async () => {
  await session(FIXTURE, async (c, ws) => {
    const main = ws.uri('main.tf');
    const rename = (line: number, ch: number, newName: string) => c.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: main }, position: pos(line, ch), newName });
    assert.deepEqual(await rename(15, 3, 'cidr_block'), {
      changes: {
        [main]: [{ range: range(15, 2, 15, 6), newText: 'cidr_block' }],
        [ws.uri('net/variables.tf')]: [{ range: range(0, 10, 0, 14), newText: 'cidr_block' }],
        [ws.uri('net/outputs.tf')]: [{ range: range(1, 14, 1, 18), newText: 'cidr_block' }],
      },
    });
    assert.deepEqual(await rename(19, 71, 'network'), {
      changes: {
        [ws.uri('net/outputs.tf')]: [{ range: range(0, 8, 0, 11), newText: 'network' }],
        [main]: [{ range: range(19, 71, 19, 74), newText: 'network' }],
      },
    });
    assert.deepEqual(await rename(6, 3, 'name_prefix'), {
      changes: { [main]: [{ range: range(6, 2, 6, 8), newText: 'name_prefix' }, { range: range(19, 19, 19, 25), newText: 'name_prefix' }] },
    });
    await assert.rejects(rename(0, 12, '2bad'), /"2bad" is not a valid name/);
    await assert.rejects(rename(15, 3, 'zones'), /var\.zones is already declared/);
  });
});

test('variables in .tfvars files: completion of their names, definition, and rename', async () => {
  const files = { ...FIXTURE, 'terraform.tfvars': 'region = "eu"\n\n' };
  await session(files, async (c, ws) => {
    const vars = ws.uri('terraform.tfvars');
    const main = ws.uri('main.tf');
    assert.deepEqual((await completion(c, vars, 2, 0)).items, [
      { label: 'region', kind: 6, detail: 'string', documentation: 'Where things go', textEdit: { range: range(2, 0, 2, 0), newText: 'region = $0' }, insertTextFormat: 2 },
    ]);
    assert.deepEqual(await c.request('textDocument/definition', { textDocument: { uri: vars }, position: pos(0, 2) }), [{ uri: main, range: range(0, 10, 0, 16) }]);
    assert.deepEqual(await c.request('textDocument/rename', { textDocument: { uri: main }, position: pos(0, 12), newName: 'location' }), {
      changes: {
        [main]: [
          { range: range(0, 10, 0, 16), newText: 'location' },
          { range: range(15, 15, 15, 21), newText: 'location' },
        ],
        [vars]: [{ range: range(0, 0, 0, 6), newText: 'location' }],
      },
    });
  }, ['main.tf', 'terraform.tfvars']);
});

test('range formatting: the selected blocks get exactly the lines foresight fmt gives them', async () => {
  const text = 'resource "random_string" "a" {\nlength=8\n  special    = false\n}\nresource "random_string" "b" {\nlength=9\n}\n';
  await session({ 'main.tf': text }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const fmt = (r: ReturnType<typeof range>) => c.request('textDocument/rangeFormatting', { textDocument: { uri }, range: r, options: { tabSize: 2, insertSpaces: true } });
    assert.deepEqual(await fmt(range(1, 0, 1, 3)), [
      { range: range(1, 0, 1, 8), newText: '  length  = 8' },
      { range: range(2, 0, 2, 20), newText: '  special = false' },
    ]);
    assert.deepEqual(await fmt(range(5, 0, 6, 0)), [{ range: range(5, 0, 5, 8), newText: '  length = 9' }]);
    // The two selections' edits together equal document formatting.
    const whole = await c.request<{ newText: string }[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    assert.equal(whole[0].newText, 'resource "random_string" "a" {\n  length  = 8\n  special = false\n}\nresource "random_string" "b" {\n  length = 9\n}\n');
    await c.change(uri, 2, [{ text: 'resource "x" "y" {\n  a = \n}\n' }]);
    assert.deepEqual(await fmt(range(0, 0, 2, 0)), [], 'no edit when the text has syntax errors');
  });
});

test('workspace symbols: declarations of every module under the workspace folder', async () => {
  await session(FIXTURE, async (c, ws) => {
    const syms = await c.request<SymbolInformation[]>('workspace/symbol', { query: '' });
    assert.deepEqual(
      syms.map((s) => [s.name, s.kind, s.location.uri.slice(pathToFileURL(ws.dir).href.length), s.location.range.start.line]),
      [
        ['var.region', 13, '/main.tf', 0],
        ['local.prefix', 14, '/main.tf', 6],
        ['random_string.suffix', 5, '/main.tf', 9],
        ['module.net', 2, '/main.tf', 13],
        ['output.id', 11, '/main.tf', 18],
        ['output.vpc', 11, '/net/outputs.tf', 0],
        ['var.cidr', 13, '/net/variables.tf', 0],
        ['var.zones', 13, '/net/variables.tf', 4],
      ],
    );
    const q = await c.request<SymbolInformation[]>('workspace/symbol', { query: 'SUFF' });
    assert.deepEqual(q, [{ name: 'random_string.suffix', kind: 5, location: { uri: ws.uri('main.tf'), range: range(9, 0, 11, 1) }, containerName: ws.dir }]);
  });
});

test('folding ranges: blocks, multi-line collections, comment runs', async () => {
  const text = '# a\n# b\nvariable "x" {\n  default = {\n    a = [\n      1,\n    ]\n  }\n}\n/* one\n   two */\n';
  await session({ 'main.tf': text }, async (c, ws) => {
    const r = await c.request<FoldingRange[]>('textDocument/foldingRange', { textDocument: { uri: ws.uri('main.tf') } });
    assert.deepEqual(r, [
      { startLine: 0, endLine: 1, kind: 'comment' },
      { startLine: 2, endLine: 7 },
      { startLine: 3, endLine: 6 },
      { startLine: 4, endLine: 5 },
      { startLine: 9, endLine: 10, kind: 'comment' },
    ]);
  });
});

test('semantic tokens: full and range', async () => {
  const text = 'resource "random_string" "a" {\n  length = var.n # c\n  keepers = { k = upper(each.key) }\n}\n';
  await session({ 'main.tf': text }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const full = await c.request<SemanticTokens>('textDocument/semanticTokens/full', { textDocument: { uri } });
    // (line delta, start delta, length, type, modifiers); types: 0 keyword, 1 type, 2 variable, 3 property,
    // 4 function, 5 namespace, 8 comment; modifiers: 1 declaration, 2 defaultLibrary.
    assert.deepEqual(full.data, [
      0, 0, 8, 0, 0, // resource
      0, 10, 13, 1, 0, // random_string
      0, 16, 1, 2, 1, // a
      1, 2, 6, 3, 0, // length
      0, 9, 3, 5, 0, // var
      0, 4, 1, 3, 0, // .n
      0, 2, 3, 8, 0, // # c
      1, 2, 7, 3, 0, // keepers
      0, 12, 1, 3, 0, // k
      0, 4, 5, 4, 2, // upper
      0, 6, 4, 5, 0, // each
      0, 5, 3, 3, 0, // .key
    ]);
    const part = await c.request<SemanticTokens>('textDocument/semanticTokens/range', { textDocument: { uri }, range: range(2, 0, 3, 0) });
    assert.deepEqual(part.data, [2, 2, 7, 3, 0, 0, 12, 1, 3, 0, 0, 4, 5, 4, 2, 0, 6, 4, 5, 0, 0, 5, 3, 3, 0]);
  });
});

async function diagnosticWith(c: TestClient, uri: string, summary: string): Promise<Diagnostic> {
  return c.waitFor(`a "${summary}" diagnostic`, () => c.latest(uri)?.diagnostics.find((d) => (typeof d.message === 'string' ? d.message : d.message.value).startsWith(summary)), 20_000);
}

function actions(c: TestClient, uri: string, r: ReturnType<typeof range>, diagnostics: Diagnostic[] = []): Promise<CodeAction[]> {
  return c.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: r, context: { diagnostics } });
}

test('code action: add a missing required argument reported by the provider schema', async () => {
  const files = { 'main.tf': 'resource "random_string" "b" {\n  special = false\n}\n' };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const d = await diagnosticWith(c, uri, 'Missing required argument');
    assert.equal(d.message, 'Missing required argument\n\nThe argument "length" is required, but no definition was found.');
    assert.deepEqual(await actions(c, uri, d.range, [d]), [
      {
        title: 'Add required argument "length"',
        kind: 'quickfix',
        diagnostics: [d],
        isPreferred: true,
        edit: { changes: { [uri]: [{ range: range(2, 0, 2, 0), newText: '  length = 0\n' }] } },
      },
    ]);
  });
});

test('code action: a missing argument in an empty one-line block opens the block up', async () => {
  await session({ 'main.tf': 'resource "random_pet" "p" {}\n\nresource "random_string" "b" {}\n' }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const d = await diagnosticWith(c, uri, 'Missing required argument');
    const a = await actions(c, uri, d.range, [d]);
    assert.deepEqual(a.map((x) => [x.title, x.edit]), [['Add required argument "length"', { changes: { [uri]: [{ range: range(2, 30, 2, 30), newText: '\n  length = 0\n' }] } }]]);
  });
});

test('code action: add a module call\'s missing argument, valued after the child variable\'s type', async () => {
  const files = { 'main.tf': 'module "net" {\n  source = "./net"\n}\n', 'net/variables.tf': 'variable "zones" {\n  type = list(string)\n}\n' };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const d = await diagnosticWith(c, uri, 'Missing required argument');
    assert.deepEqual(d.range, range(0, 13, 0, 13));
    const a = await actions(c, uri, d.range, [d]);
    assert.deepEqual(a.map((x) => [x.title, x.edit]), [['Add required argument "zones"', { changes: { [uri]: [{ range: range(2, 0, 2, 0), newText: '  zones = []\n' }] } }]]);
  });
});

test('code action: declare an undeclared variable in variables.tf, or in the same file', async () => {
  const files = { 'main.tf': 'output "o" {\n  value = var.missing\n}\n', 'variables.tf': 'variable "a" {}\n' };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const d = await diagnosticWith(c, uri, 'Reference to undeclared input variable');
    assert.deepEqual(await actions(c, uri, d.range, [d]), [
      {
        title: 'Declare variable "missing" in variables.tf',
        kind: 'quickfix',
        diagnostics: [d],
        isPreferred: true,
        edit: { changes: { [ws.uri('variables.tf')]: [{ range: range(1, 0, 1, 0), newText: '\nvariable "missing" {}\n' }] } },
      },
    ]);
  });
  await session({ 'main.tf': 'output "o" {\n  value = var.missing\n}' }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    // From the cursor alone (no diagnostic yet).
    assert.deepEqual(await actions(c, uri, range(1, 14, 1, 14)), [
      {
        title: 'Declare variable "missing"',
        kind: 'quickfix',
        edit: { changes: { [uri]: [{ range: range(2, 1, 2, 1), newText: '\n\nvariable "missing" {}\n' }] } },
      },
    ]);
  });
});

test('code action: replace a deprecated attribute with the one its schema names', async () => {
  const files = { 'main.tf': 'resource "random_password" "p" {\n  length = 8\n  number = true\n}\n' };
  await session(files, async (c, ws) => {
    const uri = ws.uri('main.tf');
    assert.deepEqual(await actions(c, uri, range(2, 4, 2, 4)), [
      { title: 'Replace deprecated "number" with "numeric"', kind: 'quickfix', edit: { changes: { [uri]: [{ range: range(2, 2, 2, 8), newText: 'numeric' }] } } },
    ]);
    assert.deepEqual(await actions(c, uri, range(1, 4, 1, 4)), [], 'length is not deprecated');
    // From the provider's warning, as the client sends it back.
    const d = await c.waitFor('the deprecation warning', () => c.latest(uri)?.diagnostics.find((x) => x.severity === 2));
    assert.match(typeof d.message === 'string' ? d.message : d.message.value, /^Attribute Deprecated\n\n\*\*NOTE\*\*: This is deprecated, use `numeric` instead\./);
    assert.deepEqual(await actions(c, uri, range(0, 0, 0, 0), [d]), [
      { title: 'Replace deprecated "number" with "numeric"', kind: 'quickfix', diagnostics: [d], edit: { changes: { [uri]: [{ range: range(2, 2, 2, 8), newText: 'numeric' }] } } },
    ]);
  });
});

test('code action: add a moved block after a resource was renamed by hand while its old address is in state', async () => {
  const state = JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial: 1,
    lineage: '00000000-0000-0000-0000-000000000000',
    outputs: {},
    resources: [
      { mode: 'managed', type: 'random_string', name: 'old', provider: 'provider["registry.terraform.io/hashicorp/random"]', instances: [] },
      { mode: 'managed', type: 'random_string', name: 'kept', provider: 'provider["registry.terraform.io/hashicorp/random"]', instances: [] },
    ],
    check_results: null,
  });
  const main = 'resource "random_string" "kept" {\n  length = 4\n}\n\nresource "random_string" "renamed" {\n  length = 4\n}\n';
  await session({ 'main.tf': main, 'terraform.tfstate': state }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    assert.deepEqual(await actions(c, uri, range(5, 3, 5, 3)), [
      {
        title: 'Add moved block from random_string.old',
        kind: 'quickfix',
        edit: { changes: { [uri]: [{ range: range(6, 1, 6, 1), newText: '\n\nmoved {\n  from = random_string.old\n  to   = random_string.renamed\n}' }] } },
      },
    ]);
    assert.deepEqual(await actions(c, uri, range(1, 3, 1, 3)), [], 'a resource that is in state needs no moved block');
  });
});

test('editing features answer for documents the server does not know, and survive broken text', async () => {
  await session({ 'main.tf': 'resource "x" {\n  a = [for k in var. : \n' }, async (c, ws) => {
    const uri = ws.uri('main.tf');
    const other = ws.uri('closed.tf');
    assert.equal(await completion(c, other, 0, 0), null);
    assert.deepEqual(await c.request('textDocument/definition', { textDocument: { uri: other }, position: pos(0, 0) }), []);
    for (let line = 0; line < 3; line++) {
      for (let ch = 0; ch < 24; ch += 3) {
        await completion(c, uri, line, ch);
        await c.request('textDocument/signatureHelp', { textDocument: { uri }, position: pos(line, ch) });
        await c.request('textDocument/references', { textDocument: { uri }, position: pos(line, ch), context: { includeDeclaration: true } });
        await c.request('textDocument/prepareRename', { textDocument: { uri }, position: pos(line, ch) });
      }
    }
    await c.request('textDocument/semanticTokens/full', { textDocument: { uri } });
    await c.request('textDocument/foldingRange', { textDocument: { uri } });
    await actions(c, uri, range(1, 0, 1, 5));
  });
});

