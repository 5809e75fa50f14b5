// Terraform-compatibility of the command line around remote state backends (issue 9's gaps outside the backends):
// workspace commands on a backend without named workspaces, the failed final state save of an apply
// (errored.tfstate), the apply journal recovery warning in plan, and the messages for unreadable remote state.
// Each compares foresight (dist/cli.js) with terraform 1.11.4 against the local http state server where terraform is
// installed; the terraform half is skipped with a printed notice where it is not.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StateServer } from './httpServer';

const ROOT = process.cwd();
const CLI = process.env.FORESIGHT_TEST_CLI || join(ROOT, 'dist/cli.js');
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const NOTICE = 'terraform is not installed; the comparison with terraform 1.11.4 is skipped';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
type Tool = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => Promise<Run>;
const foresight: Tool = (dir, env, args) => run('node', [CLI, ...args], dir, env);
const terraform: Tool = (dir, env, args) => run('terraform', args, dir, env);
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

const RESOURCES = `resource "terraform_data" "r" {
  count = 2
  input = "n-\${count.index}"
}

output "o" {
  value = terraform_data.r[*].output
}
`;

function setup(srv: StateServer, body = RESOURCES): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-compat-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  writeFileSync(
    join(dir, 'main.tf'),
    `terraform {
  backend "http" {
    address        = "${srv.base}/state"
    lock_address   = "${srv.base}/lock"
    unlock_address = "${srv.base}/lock"
  }
}

${body}`,
  );
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', TF_HTTP_RETRY_WAIT_MIN: '0', TF_HTTP_RETRY_MAX: '0' };
  for (const k of Object.keys(env)) if (k.startsWith('TF_HTTP_') && k !== 'TF_HTTP_RETRY_WAIT_MIN' && k !== 'TF_HTTP_RETRY_MAX') delete env[k];
  return { dir, env };
}

/** Runs `body` for foresight and, where installed, terraform, each in a fresh directory with a fresh server. */
async function both<T>(t: { diagnostic(s: string): void }, body: (tool: Tool, name: string) => Promise<T>): Promise<{ foresight: T; terraform?: T }> {
  const f = await body(foresight, 'foresight');
  if (!hasTerraform) {
    t.diagnostic(NOTICE);
    console.log(`# ${NOTICE}`);
    return { foresight: f };
  }
  return { foresight: f, terraform: await body(terraform, 'terraform') };
}

async function withServer<T>(fn: (srv: StateServer, dir: string, env: NodeJS.ProcessEnv) => Promise<T>, body?: string): Promise<T> {
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, body);
  try {
    return await fn(srv, dir, env);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('workspace list/new/select/delete/show on the http backend: terraform\'s "workspaces not supported" texts and exit statuses', { timeout: 120_000 }, async (t) => {
  const r = await both(t, (tool) =>
    withServer(async (_srv, dir, env) => {
      const init = await tool(dir, env, ['init', '-input=false', '-no-color']);
      assert.equal(init.status, 0, init.stdout + init.stderr);
      const out: [string, number | null, string, string][] = [];
      for (const args of [['workspace', 'list'], ['workspace', 'new', 'dev'], ['workspace', 'select', 'dev'], ['workspace', 'delete', 'dev'], ['workspace', 'show']]) {
        const x = await tool(dir, env, args);
        out.push([args.join(' '), x.status, x.stdout, plain(x.stderr)]);
      }
      return out;
    }),
  );
  assert.deepEqual(r.foresight, [
    ['workspace list', 1, '', 'workspaces not supported\n'],
    ['workspace new dev', 1, '', 'Failed to get configured named states: workspaces not supported\n'],
    ['workspace select dev', 1, '', 'workspaces not supported\n'],
    ['workspace delete dev', 1, '', 'workspaces not supported\n'],
    ['workspace show', 0, 'default\n', ''],
  ]);
  if (r.terraform) assert.deepEqual(r.foresight, r.terraform);
});

const LINEAGE = '0d8c3f3e-6a55-4f5e-9d7c-6b1c2a0e9f11';
const PRIOR = JSON.stringify({ version: 4, terraform_version: '1.11.4', serial: 5, lineage: LINEAGE, outputs: {}, resources: [], check_results: null }, null, 2) + '\n';

test('apply whose final state save fails: "Failed to persist state to backend" and errored.tfstate with the next serial, as terraform does', { timeout: 180_000 }, async (t) => {
  const r = await both(t, (tool) =>
    withServer(async (srv, dir, env) => {
      // PATCH is not a method the state server takes: the final POST-equivalent fails with 405 and no retry.
      writeFileSync(join(dir, 'main.tf'), readFileSync(join(dir, 'main.tf'), 'utf8').replace('address        =', 'update_method  = "PATCH"\n    address        ='));
      const init = await tool(dir, env, ['init', '-input=false', '-no-color']);
      assert.equal(init.status, 0, init.stdout + init.stderr);
      srv.state = Buffer.from(PRIOR);
      const ap = await tool(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
      const errored = existsSync(join(dir, 'errored.tfstate')) ? readFileSync(join(dir, 'errored.tfstate'), 'utf8') : '<none>';
      return {
        status: ap.status,
        stderr: ap.stderr,
        completeLine: /Apply complete!/.test(ap.stdout),
        errored: errored.replace(/"id": "[0-9a-f-]{36}"/g, '"id": "<uuid>"'),
        server: srv.state.toString('utf8'),
        lock: srv.lock,
      };
    }),
  );
  const f = r.foresight;
  assert.equal(f.status, 1);
  assert.equal(f.completeLine, false);
  assert.equal(
    f.stderr,
    `
Error: Failed to save state

Error saving state: HTTP error: 405

Error: Failed to persist state to backend

The error shown above has prevented Terraform from writing the updated state
to the configured backend. To allow for recovery, the state has been written
to the file "errored.tfstate" in the current working directory.

Running "terraform apply" again at this point will create a forked state,
making it harder to recover.

To retry writing this state, use the following command:
    terraform state push errored.tfstate

`,
  );
  assert.equal(f.server, PRIOR, 'the backend keeps its state');
  assert.equal(f.lock, undefined, 'the lock is released');
  const j = JSON.parse(f.errored) as { serial: number; lineage: string; resources: { instances: unknown[] }[]; outputs: Record<string, { value: unknown }> };
  assert.deepEqual([j.serial, j.lineage, j.resources.length, j.resources[0].instances.length, j.outputs.o.value], [6, LINEAGE, 1, 2, ['n-0', 'n-1']]);
  if (r.terraform) assert.deepEqual(f, r.terraform);
});

const UNREADABLE = ['{not json', 'x', '{"version": 4', '{"version": 4, "serial": "a"}', '{"version": 4, "lineage": 7}', '{"version": 9}', '{"version": 9, "terraform_version": "v2.1"}', '{"version": "4"}', '{"version": -1}', '{"version": null}', '{"version": 0}', '{}', '[]', '5', 'null', '{"version": 4} x'];

test('unreadable remote state: plan reports terraform\'s statefile.Read diagnostics (http backend)', { timeout: 300_000 }, async (t) => {
  const r = await both(t, (tool) =>
    withServer(async (srv, dir, env) => {
      const init = await tool(dir, env, ['init', '-input=false', '-no-color']);
      assert.equal(init.status, 0, init.stdout + init.stderr);
      const out: [string, number | null, string][] = [];
      for (const body of UNREADABLE) {
        srv.state = Buffer.from(body);
        const p = await tool(dir, env, ['plan', '-input=false', '-no-color', '-lock=false']);
        out.push([body, p.status, p.stderr]);
      }
      return out;
    }),
  );
  const by = new Map(r.foresight.map(([b, st, e]) => [b, [st, e]]));
  assert.deepEqual(by.get('x'), [
    1,
    '\nError: Unsupported state file format\n\nThe state file could not be parsed as JSON: syntax error at byte offset 1.\n\nError: Unsupported state file format\n\nThe state file does not have a "version" attribute, which is required to\nidentify the format version.\n',
  ]);
  assert.deepEqual(by.get('{"version": 4, "serial": "a"}'), [1, '\nError: Invalid state file format\n\nThe state file field "serial" has invalid value string\n']);
  assert.deepEqual(by.get('{"version": 9}'), [
    1,
    '\nError: Unsupported state file format\n\nThe state file uses format version 9, which is not supported by Terraform\n1.11.4. This state file may have been created by a newer version of\nTerraform.\n',
  ]);
  if (r.terraform) assert.deepEqual(r.foresight, r.terraform);
});

test('plan after an apply killed mid-run shows "State recovered from journal", as apply does (foresight only: terraform has no journal)', { timeout: 120_000 }, async () => {
  const body = `resource "terraform_data" "r" {
  count = 4
  input = count.index
}

resource "time_sleep" "wait" {
  create_duration = "30s"
  depends_on      = [terraform_data.r]
}
`;
  const killedApply = async (srv: StateServer, dir: string, env: NodeJS.ProcessEnv) => {
    const init = await foresight(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    const p = spawn('node', [CLI, 'apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, env });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    for (let i = 0; i < 600 && !out.includes('time_sleep.wait: Creating...'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(out, /time_sleep\.wait: Creating\.\.\./);
    p.kill('SIGKILL');
    await new Promise((r) => p.on('close', r));
    srv.lock = undefined; // what `force-unlock` would do
  };
  // The detail is wrapped at 78 columns; where the line breaks depends on the port's length.
  const warning = (base: string) =>
    new RegExp(`\\nWarning: State recovered from journal\\n\\nForesight replayed 4 recorded change\\(s\\) of an interrupted run onto the state[ \\n]at[ \\n]${base.replace(/\./g, '\\.')}/state\\.\\n`);
  for (const verb of ['plan', 'apply']) {
    await withServer(async (srv, dir, env) => {
      await killedApply(srv, dir, env);
      const args = verb === 'plan' ? ['plan', '-input=false', '-no-color'] : ['apply', '-input=false', '-no-color'];
      // apply without -auto-approve: the warning is shown before the prompt, then "no" cancels.
      const r = await run('sh', ['-c', `echo no | node ${JSON.stringify(CLI)} ${args.join(' ')}`], dir, env);
      assert.match(r.stdout, warning(srv.base), `${verb}:\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.stdout.split('State recovered from journal').length, 2, `${verb}: once`);
      assert.match(r.stdout, /Plan: 1 to add, 0 to change, 0 to destroy\./);
    }, body);
  }
});
