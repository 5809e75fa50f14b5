// Logging and the error boundary of the LSP edge.
//
// Contract: every handler registered in server.ts is wrapped by guard(); an exception escaping a handler is
// a bug, so it is logged with its stack to the client's output channel, and the server never crashes nor
// leaves a request unanswered: a request answers with a JSON-RPC error (InternalError, "<method> failed:
// <message>"); a notification (whose fallback is undefined: there is nothing to answer) is dropped. A
// ResponseError the handler throws on purpose (RequestCancelled, ServerCancelled) is answered as it is,
// without logging.

import { ErrorCodes, ResponseError } from 'vscode-languageserver';

/**
 * Phase tracing for latency work: with FORESIGHT_LSP_TRACE=1 in the server's environment, the server logs
 * (window/logMessage, info) a timestamped line for each handler's duration and for each phase of the
 * diagnostics pipeline (first pass, analysis request, the worker's own timings, delivery). Off by default:
 * the checks cost nothing then.
 */
export const tracing = process.env.FORESIGHT_LSP_TRACE === '1';

/** A clock shared by the main thread and the workers: milliseconds since the epoch, sub-millisecond. */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}

/** Logs `message` with the time (seconds within the minute, ms precision) when tracing is on. */
export function trace(log: Logger, message: string | (() => string)): void {
  if (!tracing) return;
  const t = clock();
  log.info(`[trace ${((t / 1000) % 100).toFixed(3)}] ${typeof message === 'function' ? message() : message}`);
}

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
    const t0 = tracing ? performance.now() : 0;
    try {
      return await fn(...args);
    } catch (e) {
      if (e instanceof ResponseError) throw e;
      log.error(`${method} failed: ${describeError(e)}`);
      const answer = fallback();
      if (answer === undefined) return answer;
      throw new ResponseError(ErrorCodes.InternalError, `${method} failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      if (tracing) trace(log, `${method} ${(performance.now() - t0).toFixed(1)} ms`);
    }
  };
}
