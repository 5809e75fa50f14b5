// The command line's view of the outside world, so commands are testable in-process:
// standard streams, environment and working directory come in through CliIO, never from globals.

export interface CliIO {
  /** Reads all of standard input (resolves to '' when stdin is empty or closed). */
  stdin: () => Promise<string>;
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
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    cwd,
    env: process.env,
  };
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
