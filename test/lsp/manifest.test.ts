// The extension manifest (package.json "contributes"/"activationEvents") agrees with the code and files it
// names: command ids with server/lsp/protocol.ts, the grammar and language configuration with syntaxes/ and
// language-configuration.json, the entry points with the esbuild bundles.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Commands } from '../../server/lsp/protocol';

const root = process.cwd();
const json = (p: string) => JSON.parse(readFileSync(join(root, p), 'utf8'));

interface Manifest {
  main: string;
  activationEvents: string[];
  contributes: {
    languages: { id: string; extensions: string[]; configuration: string }[];
    grammars: { language: string; scopeName: string; path: string }[];
    commands: { command: string; title: string; category?: string }[];
  };
}

test('the manifest contributes the terraform language, its grammar and the commands', () => {
  const m = json('package.json') as Manifest;
  assert.equal(m.main, './dist/client.js');
  assert.ok(existsSync(join(root, m.main)), 'the client bundle is built');
  assert.ok(m.activationEvents.includes('onLanguage:terraform'));

  const lang = m.contributes.languages.find((l) => l.id === 'terraform');
  assert.ok(lang);
  assert.deepEqual([...lang.extensions].sort(), ['.tf', '.tfvars']);
  const conf = json(lang.configuration);
  assert.deepEqual(conf.comments, { lineComment: '#', blockComment: ['/*', '*/'] });
  assert.deepEqual(conf.brackets, [['{', '}'], ['[', ']'], ['(', ')']]);
  assert.ok(conf.autoClosingPairs.some((p: { open: string }) => p.open === '"'));
  assert.ok(conf.indentationRules.increaseIndentPattern && conf.indentationRules.decreaseIndentPattern);
  assert.ok(conf.folding.markers.start);
  assert.match('  resource "a" "b" {', new RegExp(conf.indentationRules.increaseIndentPattern));
  assert.match('  }', new RegExp(conf.indentationRules.decreaseIndentPattern));

  const g = m.contributes.grammars.find((x) => x.language === 'terraform');
  assert.ok(g);
  assert.equal(json(g.path).scopeName, g.scopeName);

  assert.deepEqual(
    m.contributes.commands.map((c) => c.command).sort(),
    Object.values(Commands).sort(),
    'every command in the protocol table is contributed, and no other',
  );
  for (const c of m.contributes.commands) assert.ok(c.title && c.category === 'Foresight');
});

test('the client bundle leaves vscode external and starts the server bundle', () => {
  const client = readFileSync(join(root, 'dist/client.js'), 'utf8');
  assert.match(client, /require\("vscode"\)/);
  assert.match(client, /dist\/server\.js/);
  assert.ok(existsSync(join(root, 'dist/server.js')));
});
