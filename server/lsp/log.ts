// Logging and the error boundary of the LSP edge.
//
// Contract: every handler registered in server.ts is wrapped by guard(); an exception escaping a handler is
// a bug, so it is logged with its stack to the client's output channel and the handler answers with its
// fallback (what it has), never crashing the server nor leaving the request unanswered.

export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

export function describeError(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

/** Wraps `fn` so that a throw or rejection is logged and replaced by `fallback()`. */
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
      log.error(`${method} failed: ${describeError(e)}`);
      return fallback();
    }
  };
}
