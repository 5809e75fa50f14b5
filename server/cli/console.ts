// `foresight console`: reads expressions from stdin, one per line, and prints each result exactly as
// `terraform console` does (values via lang/format.ts, diagnostics via diags/render.ts in colour unless
// -no-color). Without a configuration the scope is an empty root module; the configuration layer may pass
// a Scope for a real module. Exit status: 0, or 1 after the first line that produced an error.
// Like Terraform with piped input, only the last line's result is printed.

import type { Diagnostic } from '../diags/diagnostic';
import { renderDiagnostics } from '../diags/render';
import { containsTypeVal, evaluate, type Scope } from '../lang/eval';
import { formatValue } from '../lang/format';
import { parseExpression } from '../lang/parse';
import { ModuleScope } from '../lang/scope';
import type { Expr } from '../lang/ast';

export interface ConsoleIO {
  stdin: () => Promise<string>;
  /** Standard input is a terminal: an interactive session, one line per stdin() call. */
  interactive?: boolean;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
}

const HELP = `The Terraform console allows you to experiment with Terraform interpolations.
You may access resources in the state (if you have one) just as you would
from a configuration. For example: "aws_instance.foo.id" would evaluate
to the ID of "aws_instance.foo" if it exists in your state.

Type in the interpolation to test and hit <enter> to see the result.

To exit the console, type "exit" and hit <enter>, or use Control-C or
Control-D.
`;

const FILENAME = '<console-input>';

/** The scope of the console in a directory without configuration. */
export function emptyConsoleScope(cwd: string): Scope {
  // Terraform's console resolves file paths against ".", and prints them as given.
  const baseDir = cwd === process.cwd() ? '.' : cwd;
  return new ModuleScope({ pathCwd: cwd }, { baseDir, planning: true, console: true });
}

/** Evaluates one console line (already trimmed): the result text (no trailing newline), whether it asked to exit, or diagnostics. */
export function evalConsoleLine(line: string, scope: Scope): { output?: string; exit?: boolean; diagnostics: Diagnostic[] } {
  if (line === '') return { output: '', diagnostics: [] };
  if (line === 'exit') return { exit: true, diagnostics: [] };
  if (line === 'help') return { output: HELP.replace(/\n$/, ''), diagnostics: [] };
  const p = parseExpression(line, FILENAME);
  if (!p.expr) return { diagnostics: p.diagnostics };
  const r = evaluate(p.expr, scope);
  if (r.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: r.diagnostics };
  if (containsTypeVal(r.value) && !isTypeCall(p.expr)) {
    return {
      diagnostics: [
        {
          severity: 'error',
          summary: 'Invalid use of type function',
          detail: 'The console-only "type" function cannot be used as part of an expression.',
        },
      ],
    };
  }
  return { output: formatValue(r.value), diagnostics: r.diagnostics };
}

function isTypeCall(e: Expr): boolean {
  if (e.kind === 'paren') return isTypeCall(e.expr);
  if (e.kind === 'templateWrap') return isTypeCall(e.wrapped);
  return e.kind === 'call' && (e.name === 'type' || e.name === 'core::type');
}

/**
 * Piped mode, as terraform console without a terminal: every line is evaluated in turn, the first error
 * prints its diagnostics and exits 1, `exit` ends at once without output, and only the last result is
 * printed.
 */
export async function runConsole(args: string[], io: ConsoleIO, scope?: Scope): Promise<number> {
  const color = !args.includes('-no-color');
  const sc = scope ?? emptyConsoleScope(io.cwd);
  if (io.interactive) return interactiveConsole(io, sc, color);
  const input = await io.stdin();
  const lines = input.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let last = '';
  for (const raw of lines) {
    const r = evalConsoleLine(goTrimSpace(raw), sc);
    if (r.diagnostics.some((d) => d.severity === 'error')) {
      io.stderr(uiDiagnostics(r.diagnostics, color));
      return 1;
    }
    if (r.diagnostics.length > 0) io.stderr(uiDiagnostics(r.diagnostics, color));
    if (r.exit) return 0; // terraform prints nothing at all after `exit`
    last = r.output ?? '';
  }
  io.stdout(last + '\n');
  return 0;
}

/**
 * Interactive mode, as terraform console at a terminal: a "> " prompt per line, each result printed at once,
 * errors printed without ending the session; `exit` or end of input (Ctrl-D) ends it with status 0.
 */
async function interactiveConsole(io: ConsoleIO, sc: Scope, color: boolean): Promise<number> {
  for (;;) {
    io.stdout('> ');
    const line = await io.stdin();
    if (line === '') {
      io.stdout('\n');
      return 0;
    }
    const r = evalConsoleLine(goTrimSpace(line.replace(/\r?\n$/, '')), sc);
    if (r.diagnostics.length > 0) io.stderr(uiDiagnostics(r.diagnostics, color));
    if (r.exit) return 0;
    if (!r.diagnostics.some((d) => d.severity === 'error') && r.output !== undefined) io.stdout(r.output + '\n');
  }
}

/** Terraform's UI writes each plain (-no-color) diagnostic followed by one more newline than the view form. */
function uiDiagnostics(diags: readonly Diagnostic[], color: boolean): string {
  if (color) return renderDiagnostics(diags, { color });
  return diags.map((d) => renderDiagnostics([d], { color }) + '\n').join('');
}

function goTrimSpace(s: string): string {
  return s.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g, '');
}
