// The extension's activation, with `vscode` replaced by a recording stub (no VS Code here): it registers
// the contributed commands and never rejects, even when the language client cannot start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Commands } from '../../server/lsp/protocol';

/** A value that accepts any property access, call or construction (enough for modules to load). */
function anything(path: string, log: string[]): unknown {
  const target = function () {};
  return new Proxy(target, {
    get: (_t, p) => (p === 'then' ? undefined : p === 'prototype' ? {} : anything(`${path}.${String(p)}`, log)),
    apply: () => {
      log.push(`call ${path}`);
      return anything(`${path}()`, log);
    },
    construct: () => anything(`new ${path}`, log) as object,
  });
}

const API_NAMES = [
  'workspace', 'languages', 'env', 'extensions', 'Uri', 'Disposable', 'EventEmitter', 'Range', 'Position', 'Location',
  'Diagnostic', 'DiagnosticSeverity', 'CancellationTokenSource', 'CancellationError', 'ProgressLocation', 'l10n',
  'notebooks', 'TextEdit', 'WorkspaceEdit', 'CodeAction', 'CodeActionKind', 'CompletionItem', 'MarkdownString',
  'SymbolKind', 'DocumentSymbol', 'SymbolInformation', 'FileSystemError', 'FileType', 'RelativePattern', 'debug',
  'tasks', 'ThemeIcon', 'StatusBarAlignment', 'LanguageStatusSeverity', 'ViewColumn', 'SnippetString',
  'SemanticTokens', 'SemanticTokensLegend', 'FoldingRange', 'Hover', 'SignatureHelp', 'DocumentLink', 'Color',
  'ColorInformation', 'ColorPresentation', 'CallHierarchyItem', 'TypeHierarchyItem', 'InlayHint', 'CodeLens',
  'DocumentHighlight', 'SelectionRange', 'InlineCompletionItem', 'ConfigurationTarget', 'EndOfLine',
  'FileChangeType', 'DiagnosticTag', 'CompletionItemKind', 'CompletionItemTag',
];

test('activation registers the commands and survives a language client that cannot start', async () => {
  const log: string[] = [];
  const commands = new Map<string, () => unknown>();
  const errors: string[] = [];
  const vscode: Record<string, unknown> = {};
  for (const k of API_NAMES) vscode[k] = anything(`vscode.${k}`, log);
  // No `version`: the language client refuses to start, as it would on an unsupported VS Code.
  const windowOverrides: Record<string, unknown> = {
    createOutputChannel: () => ({ info() {}, debug() {}, error: (m: string) => errors.push(m), appendLine() {}, dispose() {} }),
    showErrorMessage: (m: string) => {
      errors.push(m);
      return Promise.resolve(undefined);
    },
  };
  windowOverrides.createStatusBarItem = () => ({ show() {}, hide() {}, dispose() {} });
  // Views and the rest of `window` accept anything.
  const windowRest = anything('vscode.window', log) as Record<string, unknown>;
  vscode.window = new Proxy(windowOverrides, { get: (t, p: string) => (p in t ? t[p] : windowRest[p]) });
  const workspaceRest = anything('vscode.workspace', log) as Record<string, unknown>;
  const workspaceOverrides: Record<string, unknown> = { isTrusted: true, findFiles: () => Promise.resolve([]) };
  vscode.workspace = new Proxy(workspaceOverrides, { get: (t, p: string) => (p in t ? t[p] : workspaceRest[p]) });
  const contexts = new Map<string, unknown>();
  vscode.commands = {
    registerCommand: (id: string, fn: () => unknown) => {
      commands.set(id, fn);
      return { dispose() {} };
    },
    executeCommand: (id: string, key: string, value: unknown) => {
      if (id === 'setContext') contexts.set(key, value);
      return Promise.resolve(undefined);
    },
  };

  const Module = require('node:module') as { _load: (req: string, ...rest: unknown[]) => unknown };
  const load = Module._load;
  Module._load = function (req: string, ...rest: unknown[]) {
    return req === 'vscode' ? vscode : load.call(this, req, ...rest);
  };
  try {
    const ext = require(join(process.cwd(), 'dist', 'client.js')) as { activate(ctx: unknown): Promise<void> };
    const subscriptions: unknown[] = [];
    await ext.activate({ subscriptions, asAbsolutePath: (p: string) => join(process.cwd(), p) });
    assert.deepEqual([...commands.keys()], Object.values(Commands));
    assert.ok(subscriptions.length >= 2, 'the output channel and the command are disposed with the extension');
    assert.ok(errors.some((m) => m.startsWith('The language server did not start')), errors.join('\n'));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(contexts.get('foresight.active'), true, 'the palette shows the run commands once active');
    assert.equal(contexts.get('foresight.hasTerraformFiles'), false, 'the welcome view shows without .tf files');
  } finally {
    Module._load = load;
  }
});
