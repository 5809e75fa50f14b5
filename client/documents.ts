// Read-only virtual documents of the `foresight` URI scheme: the prior and planned JSON of an instance for
// VS Code's diff editor (Show Planned Diff) and an instance's object in the state (Show in State).
// Texts are kept by URI for the session; each opened diff gets fresh URIs, so a later plan never changes
// what an already open editor shows.

import * as vscode from 'vscode';

export const SCHEME = 'foresight';

export class VirtualDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  /** Stores `text` under a new URI whose path ends in `name` (e.g. `prior/aws_x.y.json`). */
  put(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}`, query: String(++this.counter) });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  get(uri: vscode.Uri): string | undefined {
    return this.texts.get(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}
