// Records `terraform console` results for test/data/config/console-cases.json into
// test/data/config/console-expected.json (run: node test/config/record-console.mjs; needs terraform on PATH).
// Each expression of a case runs separately in a fresh temporary directory after `terraform init`; the directory path is replaced by
// <DIR> so recordings are portable. Environment: an empty CLI config, no checkpoint, no inherited TF_VAR_*.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const cases = JSON.parse(readFileSync('test/data/config/console-cases.json', 'utf8'));
const cfg = join(tmpdir(), 'foresight-empty.tfrc');
writeFileSync(cfg, '');
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TF_')));
Object.assign(baseEnv, { TF_CLI_CONFIG_FILE: cfg, CHECKPOINT_DISABLE: '1' });
const version = execFileSync('terraform', ['version'], { env: baseEnv, encoding: 'utf8' }).split('\n')[0];
const out = { recorded_with: version };
for (const [name, c] of Object.entries(cases)) {
  const dir = mkdtempSync(join(tmpdir(), 'fs-console-'));
  for (const [p, text] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  execFileSync('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env: baseEnv, stdio: 'ignore' });
  const norm = (s) => s.split(dir).join('<DIR>');
  // Piped console prints only the last result: one run per expression.
  out[name] = c.exprs.map((e) => {
    const r = spawnSync('terraform', ['console', ...c.args], { cwd: dir, env: { ...baseEnv, ...c.env }, input: e + '\n', encoding: 'utf8' });
    return { exit_code: r.status, stdout: norm(r.stdout), stderr: norm(r.stderr) };
  });
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${name}: ${out[name].map((r) => r.exit_code).join(' ')}\n`);
}
writeFileSync('test/data/config/console-expected.json', JSON.stringify(out, null, 1) + '\n');
