// The command line's view of the outside world, so commands are testable in-process:
// standard streams, environment and working directory come in through CliIO, never from globals.

export interface CliIO {
  /**
   * Reads standard input: all of it when it is a pipe or file (then '' on later calls), one line (with its
   * newline) per call when it is a terminal, so prompts can be answered interactively; '' at end of input.
   */
  stdin: () => Promise<string>;
  /** Whether standard input is a terminal (interactive console). Absent means no. */
  interactive?: boolean;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** The working directory after -chdir has been applied. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** A command: arguments after the verb in, exit status out. */
export type Command = (args: string[], io: CliIO) => Promise<number>;

export function processIO(cwd = process.cwd()): CliIO {
  return {
    stdin: readStdin,
    interactive: process.stdin.isTTY === true,
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    cwd,
    env: process.env,
  };
}

let pipeConsumed = false;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return readTerminalLine();
  if (pipeConsumed) return '';
  pipeConsumed = true;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Typed text read from the terminal beyond the line last returned (several lines can arrive at once). */
let terminalPending = '';

/** One line typed at the terminal (cooked mode: the terminal edits the line), '' after Ctrl-D. */
function readTerminalLine(): Promise<string> {
  const take = (): string | undefined => {
    const nl = terminalPending.indexOf('\n');
    if (nl < 0) return undefined;
    const line = terminalPending.slice(0, nl + 1);
    terminalPending = terminalPending.slice(nl + 1);
    return line;
  };
  const ready = take();
  if (ready !== undefined) return Promise.resolve(ready);
  return new Promise((resolve) => {
    const finish = (s: string) => {
      process.stdin.off('data', onData);
      process.stdin.off('end', onEnd);
      process.stdin.pause();
      resolve(s);
    };
    const onData = (c: Buffer) => {
      terminalPending += c.toString('utf8');
      const line = take();
      if (line !== undefined) finish(line);
    };
    const onEnd = () => {
      const rest = terminalPending;
      terminalPending = '';
      finish(rest);
    };
    process.stdin.on('data', onData);
    process.stdin.on('end', onEnd);
    process.stdin.resume();
  });
}
