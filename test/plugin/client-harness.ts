// Shared by the client, pool and bench tests: bundles test/plugin/client-testprovider.ts once per process with
// esbuild and makes `terraform-provider-<name>` wrapper scripts for it (the form a provider binary has on disk).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

let bundled: string | undefined;

/** The bundled test provider (a .js file run by node). */
export async function testProviderBundle(): Promise<string> {
  if (bundled) return bundled;
  const dir = mkdtempSync(join(tmpdir(), 'fs-testprovider-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'provider.js');
  // esbuild's API cannot itself be bundled into the test: load it from node_modules at run time.
  const esbuild = createRequire(resolve(process.cwd(), 'package.json'))('esbuild') as typeof import('esbuild');
  await esbuild.build({
    entryPoints: [resolve(process.cwd(), 'test/plugin/client-testprovider.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    loader: { '.txt': 'text', '.proto': 'text' },
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  });
  bundled = out;
  return out;
}

/**
 * Writes `<dir>/terraform-provider-<name><suffix>` running the test provider with fixed settings (FAKE_* variables
 * baked in, so the provider behaves the same whoever starts it). Returns the path.
 */
export async function writeTestProvider(dir: string, name: string, settings: Record<string, string> = {}, suffix = ''): Promise<string> {
  const bundle = await testProviderBundle();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `terraform-provider-${name}${suffix}`);
  const vars = Object.entries({ FAKE_PROVIDER: name, ...settings })
    .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  writeFileSync(file, `#!/bin/sh\n${vars} exec ${process.execPath} ${bundle} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}
