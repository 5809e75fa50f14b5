// Records `terraform validate -json` for cases in test/data/config/validate-cases.json that have no entry in
// test/data/config/validate-expected.json yet (run: node test/config/record-validate.mjs; needs terraform).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cases = JSON.parse(readFileSync('test/data/config/validate-cases.json', 'utf8'));
const expected = JSON.parse(readFileSync('test/data/config/validate-expected.json', 'utf8'));
const cfg = join(tmpdir(), 'foresight-empty.tfrc');
writeFileSync(cfg, '');
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TF_')));
Object.assign(env, { TF_CLI_CONFIG_FILE: cfg, CHECKPOINT_DISABLE: '1' });
for (const [name, src] of Object.entries(cases)) {
  if (expected[name]) continue;
  const dir = mkdtempSync(join(tmpdir(), 'fs-validate-'));
  writeFileSync(join(dir, 'main.tf'), src);
  const r = spawnSync('terraform', ['validate', '-json'], { cwd: dir, env, encoding: 'utf8' });
  expected[name] = { exit_code: r.status, stdout: r.stdout };
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${name}: ${r.status}\n`);
}
writeFileSync('test/data/config/validate-expected.json', JSON.stringify(expected, null, 1) + '\n');
