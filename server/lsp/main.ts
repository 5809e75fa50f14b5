// Entry point of the language server bundle (dist/server.js). The transport is chosen from the command line
// as vscode-languageserver does: `--stdio`, `--node-ipc` (the VS Code client's default) or `--socket=N`.

import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { describeError } from './log';
import { startServer } from './server';

const connection = createConnection(ProposedFeatures.all);
// A bug outside any handler (a timer, a stray promise) is logged, not allowed to kill the server.
process.on('uncaughtException', (e) => connection.console.error(`uncaught: ${describeError(e)}`));
process.on('unhandledRejection', (e) => connection.console.error(`unhandled rejection: ${describeError(e)}`));
startServer(connection);
