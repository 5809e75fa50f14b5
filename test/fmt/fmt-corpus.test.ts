// Conformance of `foresight fmt` with `terraform fmt` on the recorded corpus (test/data/fmt, see its README):
// every case is checked through one helper for stdin mode (coloured and -no-color), -check and -diff,
// including the bytes written to disk.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFmt } from '../../server/cli/fmt';
import { format } from '../../server/fmt/format';

const CORPUS = join(process.cwd(), 'test/data/fmt/public');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export async function run(args: string[], cwd: string, stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runFmt(args, {
    stdin: async () => stdin,
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    cwd,
  });
  return { code, stdout, stderr };
}

const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

/** Checks one corpus case in every mode the corpus records. */
async function checkCase(name: string): Promise<void> {
  const dir = join(CORPUS, name);
  const input = readdirSync(dir).find((f) => f.startsWith('input.'))!;
  const ext = input.slice('input.'.length);
  const src = read(dir, input);
  const exit = Number(read(dir, 'exit.txt').trim());

  const stdin = await run(['-'], dir, src);
  assert.equal(stdin.code, exit, `${name}: exit of fmt -`);
  assert.equal(stdin.stdout, read(dir, `output.${ext}`), `${name}: stdout of fmt -`);
  assert.equal(stdin.stderr, read(dir, 'fmt-stderr.txt'), `${name}: stderr of fmt -`);

  const nocolor = await run(['-no-color', '-'], dir, src);
  assert.equal(nocolor.code, exit, `${name}: exit of fmt -no-color -`);
  assert.equal(nocolor.stdout, stdin.stdout, `${name}: stdout of fmt -no-color -`);
  assert.equal(nocolor.stderr, read(dir, 'fmt-stderr-nocolor.txt'), `${name}: stderr of fmt -no-color -`);

  for (const mode of ['check', 'diff'] as const) {
    const tmp = mkdtempSync(join(tmpdir(), 'fmt-corpus-'));
    try {
      copyFileSync(join(dir, input), join(tmp, input));
      const r = await run([`-${mode}`, input], tmp);
      assert.equal(r.code, Number(read(dir, `${mode}-exit.txt`).trim()), `${name}: exit of fmt -${mode}`);
      assert.equal(r.stdout, read(dir, `${mode}-stdout.txt`), `${name}: stdout of fmt -${mode}`);
      assert.equal(r.stderr, read(dir, `${mode}-stderr.txt`), `${name}: stderr of fmt -${mode}`);
      const onDisk = readFileSync(join(tmp, input), 'utf8');
      assert.equal(onDisk, mode === 'check' ? src : read(dir, `written.${ext}`), `${name}: file after fmt -${mode}`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  // The formatter on its own gives the written file, and formatting is idempotent where Terraform's is.
  const out = format(src, input).output;
  if (exit === 0) {
    assert.equal(out, read(dir, `written.${ext}`), `${name}: format()`);
    if (name !== 'legacy-interp-nested-quotes') assert.equal(format(out!, input).output, out, `${name}: idempotent`);
  } else {
    assert.equal(out, undefined, `${name}: format() rejects the input`);
  }
}

for (const name of readdirSync(CORPUS).sort()) {
  test(`fmt corpus: ${name}`, () => checkCase(name));
}
