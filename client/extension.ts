// The VS Code extension: starts the Foresight language server (dist/server.js) over node IPC and binds the
// extension's commands. All language intelligence lives in the server; this client only wires VS Code to it.
//
// Contract: activate() registers every contributed command at once and never rejects: when the language
// server cannot start, the error goes to the output channel and a message, and the restart command tries
// again. The output channel "Foresight" carries the server's log.

import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { AnalysisStatusNotification, Commands, type InitializationOptions } from '../server/lsp/protocol';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Foresight', { log: true });
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.restartServer, async () => {
      if (!client) {
        await startClient(context, output);
        return;
      }
      output.info('Restarting the language server');
      await client.restart();
    }),
  );

  await startClient(context, output);
}

async function startClient(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const initializationOptions: InitializationOptions = {};
  // Files changed on disk (not open, or saved by other programs) change the analysis of their module.
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{tf,tfvars}');
  context.subscriptions.push(watcher);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'terraform' }],
    synchronize: { fileEvents: watcher },
    outputChannel: output,
    initializationOptions,
  };
  try {
    const c = new LanguageClient('foresight', 'Foresight', serverOptions, clientOptions);
    c.onNotification(AnalysisStatusNotification.method, (p: AnalysisStatusNotification.Params) => {
      if (p.failure) output.error(`Analysis of ${p.directory} failed: ${p.failure}`);
      else output.debug(`Analysed ${p.directory} in ${p.durationMs} ms: ${p.diagnostics} diagnostics`);
    });
    client = c;
    await c.start();
  } catch (e) {
    // Activation still succeeds: the restart command stays available to try again.
    output.error(`The language server did not start: ${e instanceof Error ? e.message : String(e)}`);
    void vscode.window.showErrorMessage('Foresight: the language server did not start; see the Foresight output.');
  }
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}
