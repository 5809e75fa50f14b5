// Prompts and the console at a real terminal: dist/cli.js runs under util-linux `script`, which gives it a
// pseudo-terminal as standard input, so io.ts reads one typed line per prompt instead of all of stdin. Before
// this, every prompt at a terminal read end of input ("Apply cancelled.", "Error asking for ... EOF") and
// `foresight console` evaluated nothing. Skips with a notice where `script` is missing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = join(process.cwd(), 'dist/cli.js');

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SCRIPT = hasScript();
if (!SCRIPT) console.log('# notice: util-linux `script` not found; terminal prompt tests skipped');

/** Runs `node dist/cli.js <args>` on a pseudo-terminal fed with `input`; returns what the terminal showed. */
function onTerminal(cwd: string, args: string[], input: string): { out: string; status: number | null } {
  const cmd = ['node', CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd, input, encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' }, timeout: 60_000 });
  return { out: r.stdout.replace(/\r\n/g, '\n'), status: r.status };
}

test('console at a terminal: a prompt per line, each result printed, errors do not end the session', { skip: !SCRIPT && 'no script(1)' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'fs-tty-'));
  try {
    const r = onTerminal(dir, ['console'], '1+2\nupper("a")\nnope(\n"after"\nexit\n');
    assert.equal(r.status, 0);
    // The terminal echoes the typed lines first (all input arrives at once), then the session's output.
    const session = r.out.slice(r.out.indexOf('exit\n') + 'exit\n'.length);
    assert.ok(session.startsWith('> 3\n> "A"\n> '), session);
    assert.match(session, /Error: .*Missing expression/);
    assert.ok(session.endsWith('> "after"\n> '), session);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('apply at a terminal reads the typed approval and applies', { skip: !SCRIPT && 'no script(1)' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'fs-tty-'));
  try {
    writeFileSync(join(dir, 'main.tf'), 'resource "terraform_data" "a" {\n  input = "x"\n}\n');
    const r = onTerminal(dir, ['apply', '-no-color'], 'yes\n');
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /Enter a value: /);
    assert.match(r.out, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\./);
    const state = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')) as { resources: unknown[] };
    assert.equal(state.resources.length, 1);
    const no = onTerminal(dir, ['destroy', '-no-color'], 'no\n');
    assert.equal(no.status, 1);
    assert.match(no.out, /Destroy cancelled\./);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
