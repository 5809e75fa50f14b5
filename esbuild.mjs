// Builds the three bundles (extension client, language server, command line) and copies the
// tree-sitter WebAssembly files beside them. `node esbuild.mjs [--watch]`.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  loader: { '.txt': 'text', '.proto': 'text' },
  // web-tree-sitter reads import.meta.url to find its files; give the CommonJS bundles a real one.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

mkdirSync('dist', { recursive: true });
copyFileSync('node_modules/web-tree-sitter/web-tree-sitter.wasm', 'dist/web-tree-sitter.wasm');
copyFileSync('node_modules/@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-terraform.wasm', 'dist/tree-sitter-terraform.wasm');

await Promise.all([
  esbuild.build({ ...common, entryPoints: ['client/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] }),
  esbuild.build({ ...common, entryPoints: ['server/lsp/main.ts'], outfile: 'dist/server.js' }),
  esbuild.build({ ...common, entryPoints: ['server/cli/bin.ts'], outfile: 'dist/cli.js' }),
  esbuild.build({ ...common, entryPoints: ['test/bench/bench.ts'], outfile: 'dist/bench.js' }),
]);
