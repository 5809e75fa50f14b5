// Editing features (issue 7 §3): completion, signature help, definition/references, rename, symbols,
// folding, semantic tokens, code actions. server.ts calls registerEditing once; initialize.ts merges
// editingCapabilities into the server's capabilities.

import type { Connection, InitializeParams, ServerCapabilities } from 'vscode-languageserver';
import type { Session } from '../session';

export function editingCapabilities(_params: InitializeParams): Partial<ServerCapabilities> {
  return {};
}

export function registerEditing(_connection: Connection, _session: Session): void {}
