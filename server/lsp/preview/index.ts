// The preview plan and runs on request (issue 7 §2, §4): code lens, inlay hints, hover, and the custom
// foresight/* requests of protocol.ts. server.ts calls registerPreview once; initialize.ts merges
// previewCapabilities into the server's capabilities.

import type { Connection, InitializeParams, ServerCapabilities } from 'vscode-languageserver';
import type { Session } from '../session';

export function previewCapabilities(_params: InitializeParams): Partial<ServerCapabilities> {
  return {};
}

export function registerPreview(_connection: Connection, _session: Session): void {}
