// Logging and the error boundary of the LSP edge.
//
// Contract: every handler registered in server.ts is wrapped by guard(); an exception escaping a handler is
// a bug, so it is logged with its stack to the client's output channel, and the server never crashes nor
// leaves a request unanswered: a request answers with a JSON-RPC error (InternalError, "<method> failed:
// <message>"); a notification (whose fallback is undefined: there is nothing to answer) is dropped. A
// ResponseError the handler throws on purpose (RequestCancelled, ServerCancelled) is answered as it is,
// without logging.

import { ErrorCodes, ResponseError } from 'vscode-languageserver';

export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

export function describeError(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

/**
 * Wraps `fn` so that a throw or rejection is logged and answered with an error (requests) or dropped
 * (notifications: `fallback()` is undefined). `fallback` names what the method answers when it has nothing.
 */
export function guard<A extends unknown[], R>(
  log: Logger,
  method: string,
  fallback: () => R,
  fn: (...args: A) => R | Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (e) {
      if (e instanceof ResponseError) throw e;
      log.error(`${method} failed: ${describeError(e)}`);
      const answer = fallback();
      if (answer === undefined) return answer;
      throw new ResponseError(ErrorCodes.InternalError, `${method} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}
