// Where a provider's ReadResource diagnostics point (Terraform's refresh(): InConfigBody of the resource's
// configuration when it has one): our local provider served as a plugin, a local_file whose file became a
// directory outside Terraform, so ReadResource answers "Read local file error". The diagnostic names the resource
// ("with local_file.f,") and shows the block's first line; for an object whose resource left the configuration
// there is no body and neither line. Foresight's output is asserted as recorded from terraform 1.11.4 and, where
// terraform is installed, compared with a live run driving the same plugin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyWorkspace, foresight, harness, hasTerraform, terraform, workspace } from './_served';

const MAIN = 'resource "local_file" "f" {\n  filename = "${path.module}/out.txt"\n  content  = "hi"\n}\n';
const ID = 'c22b5f9178342609428d6f51b2c5af4c0bde6a42'; // sha1("hi")

const WITH_BODY = `╷
│ Error: Read local file error
│ 
│   with local_file.f,
│   on main.tf line 1, in resource "local_file" "f":
│    1: resource "local_file" "f" {
│ 
│ An unexpected error occurred while reading the file
│ 
│ +Original Error: read ./out.txt: is a directory
╵
`;

const WITHOUT_BODY = `╷
│ Error: Read local file error
│ 
│ An unexpected error occurred while reading the file
│ 
│ +Original Error: read ./out.txt: is a directory
╵
`;

test('ReadResource diagnostics: "with ADDRESS" and the block\'s line when the resource is configured, neither when it is not', () => {
  const h = harness({ providers: ['local'] });
  try {
    const fsDir = workspace(h, 'fs', { 'main.tf': MAIN });
    const tfDir = copyWorkspace(fsDir, join(h.root, 'tf'));
    const dirs = hasTerraform ? [fsDir, tfDir] : [fsDir];
    if (!hasTerraform) console.log('# SKIP (part): terraform is not on PATH; foresight is compared with the recorded output only');
    const run = (d: string, args: string[]) => (d === fsDir ? foresight(d, args, h.env) : terraform(h, d, args));
    for (const d of dirs) {
      const a = run(d, ['apply', '-auto-approve']);
      assert.equal(a.status, 0, a.stdout + a.stderr);
      rmSync(join(d, 'out.txt'));
      mkdirSync(join(d, 'out.txt'));
    }
    const plans = dirs.map((d) => run(d, ['plan', '-no-color']));
    assert.equal(plans[0].status, 1);
    assert.equal(plans[0].stdout, `local_file.f: Refreshing state... [id=${ID}]\n\nPlanning failed. Terraform encountered an error while generating this plan.\n\n`);
    // -no-color: the box's left edge goes, its closing line too.
    assert.equal(plans[0].stderr, WITH_BODY.replace(/╵\n$/, '').replace(/^[╷│] ?/gm, ''));
    if (plans[1]) assert.deepEqual(plans[1], plans[0]);
    // The resource removed from the configuration: the orphan's refresh has no body to point into.
    for (const d of dirs) writeFileSync(join(d, 'main.tf'), '');
    const orphans = dirs.map((d) => run(d, ['plan']));
    assert.equal(orphans[0].status, 1);
    assert.equal(orphans[0].stderr.replace(/\x1b\[[0-9;]*m/g, ''), WITHOUT_BODY);
    if (orphans[1]) assert.deepEqual(orphans[1], orphans[0]);
  } finally {
    h.dispose();
  }
});
