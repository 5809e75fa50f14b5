// workspace/didChangeWatchedFiles: configuration files changed on disk (the client watches *.tf, *.tfvars and
// their JSON forms); the directories of open documents they affect are re-analysed.

import type { DidChangeWatchedFilesParams } from 'vscode-languageserver';
import { uriToPath } from '../documents';
import type { Session } from '../session';

export function didChangeWatchedFiles(session: Session, params: DidChangeWatchedFilesParams): void {
  const paths = params.changes.flatMap((c) => {
    const p = uriToPath(c.uri);
    return p === undefined ? [] : [p];
  });
  if (paths.length) session.diagnostics.filesChanged(paths);
}
