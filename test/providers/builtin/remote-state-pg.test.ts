// terraform_remote_state with backend = "pg" against a throwaway PostgreSQL cluster (scripts/pg.mjs; the file skips
// with a printed notice when PostgreSQL cannot be installed or started): a state written by `foresight apply` on the
// pg backend is read by the data source, in the default and a named workspace, and by terraform 1.11.4 alike where
// terraform is installed (skipped with a printed notice otherwise).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwawayCluster } from '../../pg-cluster';

const cluster = throwawayCluster('terraform_remote_state pg tests');

const ROOT = process.cwd();
const CLI = process.env.FORESIGHT_TEST_CLI || join(ROOT, 'dist/cli.js');
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const NOTICE = 'terraform is not installed; the terraform_remote_state pg comparison with terraform 1.11.4 is skipped';

function tool(cmd: 'foresight' | 'terraform', dir: string, args: string[]) {
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' };
  delete env.PG_CONN_STR;
  delete env.PG_SCHEMA_NAME;
  const r = cmd === 'foresight' ? spawnSync('node', [CLI, ...args], { cwd: dir, env, encoding: 'utf8' }) : spawnSync('terraform', args, { cwd: dir, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('terraform_remote_state backend = "pg": outputs of the default and a named workspace, as terraform reads them', { timeout: 240_000 }, async (t) => {
  const pg = cluster.pg;
  if (!pg) {
    t.skip(`PostgreSQL unavailable: ${cluster.skipReason}`);
    return;
  }
  const conn = pg.createDb(`rs${process.pid}`);
  const writer = mkdtempSync(join(tmpdir(), 'foresight-rs-pg-w-'));
  const reader = mkdtempSync(join(tmpdir(), 'foresight-rs-pg-r-'));
  try {
    writeFileSync(
      join(writer, 'main.tf'),
      `terraform {\n  backend "pg" {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n\nvariable "v" {\n  type = string\n}\n\noutput "name" {\n  value = var.v\n}\n\noutput "list" {\n  value = [1, 2]\n}\n`,
    );
    for (const step of [['init', '-input=false', '-no-color'], ['apply', '-auto-approve', '-input=false', '-no-color', '-var', 'v=default-ws'], ['workspace', 'new', 'dev'], ['apply', '-auto-approve', '-input=false', '-no-color', '-var', 'v=dev-ws']]) {
      const r = tool('foresight', writer, step);
      assert.equal(r.status, 0, `${step.join(' ')}: ${r.stdout}${r.stderr}`);
    }
    writeFileSync(
      join(reader, 'main.tf'),
      `data "terraform_remote_state" "d" {\n  backend = "pg"\n  config = {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n\ndata "terraform_remote_state" "dev" {\n  backend   = "pg"\n  workspace = "dev"\n  config = {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n\noutput "both" {\n  value = [data.terraform_remote_state.d.outputs, data.terraform_remote_state.dev.outputs]\n}\n`,
    );
    const readWith = (cmd: 'foresight' | 'terraform') => {
      rmSync(join(reader, '.terraform'), { recursive: true, force: true });
      rmSync(join(reader, 'terraform.tfstate'), { force: true });
      assert.equal(tool(cmd, reader, ['init', '-input=false', '-no-color']).status, 0);
      const ap = tool(cmd, reader, ['apply', '-auto-approve', '-input=false', '-no-color']);
      assert.equal(ap.status, 0, ap.stdout + ap.stderr);
      return JSON.parse(tool(cmd, reader, ['output', '-json', 'both']).stdout) as unknown;
    };
    const f = readWith('foresight');
    assert.deepEqual(f, [
      { list: [1, 2], name: 'default-ws' },
      { list: [1, 2], name: 'dev-ws' },
    ]);
    if (!hasTerraform) {
      t.diagnostic(NOTICE);
      console.log(`# ${NOTICE}`);
      return;
    }
    assert.deepEqual(f, readWith('terraform'));
  } finally {
    rmSync(writer, { recursive: true, force: true });
    rmSync(reader, { recursive: true, force: true });
  }
});
