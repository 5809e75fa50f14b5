// Custom messages between the Foresight client (client/) and this language server, declared once here and
// imported by both sides. Each declaration states its direction and meaning. This module imports nothing:
// the client (vscode-languageclient) and the server (vscode-languageserver) depend on different versions of
// vscode-jsonrpc, whose NotificationType classes are not interchangeable, so each message is declared as its
// method name plus its parameter type, and each side sends/listens with the method name.

/** Options the client passes in `initializationOptions`; every field is optional. */
export interface InitializationOptions {
  /** Quiet period after the last edit before a directory is re-analysed, in milliseconds (default 150). */
  debounceMs?: number;
  /** Time an analysis of one directory may take before it is abandoned, in milliseconds (default 30000). */
  analysisTimeoutMs?: number;
}

export interface AnalysisStatusParams {
  /** The module directory (absolute path) that was analysed. */
  directory: string;
  /** Wall-clock time of the analysis in milliseconds. */
  durationMs: number;
  /** Number of diagnostics found in the directory, all files together. */
  diagnostics: number;
  /** Set when the analysis failed unexpectedly (a bug); the previous diagnostics were kept. */
  failure?: string;
}

/**
 * Server → client, after each analysis of a module directory finishes. Informational: the client logs it;
 * tests may use it to know an analysis happened. Diagnostics themselves travel by the standard messages.
 */
export namespace AnalysisStatusNotification {
  export const method = 'foresight/analysisStatus';
  export type Params = AnalysisStatusParams;
}

/** Command identifiers contributed by the extension (package.json "contributes.commands"). */
export const Commands = {
  restartServer: 'foresight.restartServer',
} as const;
