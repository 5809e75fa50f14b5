// The state one language-server connection works with: the open documents, the engine, the diagnostics
// scheduler and the logger. Handlers receive the Session; they hold no state of their own.

import type { OpenDocuments } from './documents';
import type { DiagnosticsScheduler } from './diagnostics';
import type { Engine } from './engine';
import type { Logger } from './log';

export interface Session {
  readonly engine: Engine;
  readonly documents: OpenDocuments;
  readonly diagnostics: DiagnosticsScheduler;
  readonly log: Logger;
}
