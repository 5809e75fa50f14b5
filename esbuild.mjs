// Builds the three bundles (extension client, language server, command line) and copies the
// tree-sitter WebAssembly files beside them. `node esbuild.mjs [--watch]`.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

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

// The code-cache loader that heads both wrapped bundles (built once; its output does not depend on the bundle).
const loaderBuild = esbuild.build({ ...common, sourcemap: false, banner: {}, entryPoints: ['server/loader.ts'], write: false, outfile: 'dist/loader.js' });

await Promise.all([
  esbuild.build({ ...common, entryPoints: ['client/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] }),
  buildWrapped('server', 'server/lsp/main.ts', 'dist/server.js'),
  buildWrapped('cli', 'server/cli/bin.ts', 'dist/cli.js'),
  esbuild.build({ ...common, entryPoints: ['test/bench/bench.ts'], outfile: 'dist/bench.js' }),
]);

// dist/cli.js and dist/server.js: the bundle wrapped in a CommonJS function expression, as a comment that
// server/loader.ts compiles with a V8 code cache keyed by the bundle's hash (see loader.ts for the invariants). The
// wrapper adds no line, so stack positions are the bundle's own; the .js.map file maps the bundle.
//
// Whitespace and syntax are minified (names are kept, so stacks still name their functions): every thread of the
// language server holds its bundle's source text for as long as it runs (V8 compiles functions lazily from it),
// 4.4 MB as written, 3.2 MB minified.
async function buildWrapped(kind, entry, out) {
  const built = await esbuild.build({ ...common, minifyWhitespace: true, minifySyntax: true, entryPoints: [entry], outfile: out, write: false });
  const code = built.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const map = built.outputFiles.find((f) => f.path.endsWith('.map'));
  // esbuild escapes non-ASCII characters everywhere but in comments; escaping the rest keeps the file ASCII.
  const ascii = code.replace(/[^\x00-\x7f]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  // A vm.Script has no loader for import() on Node 20: web-tree-sitter's two imports of Node built-ins become
  // require through __foresightImport (any other import() fails the build, to be looked at).
  const imports = [];
  const body = ascii.replace(/\bimport\(("[^"]+")\)/g, (_, spec) => (imports.push(JSON.parse(spec)), `__foresightImport(${spec})`));
  if (imports.sort().join() !== 'fs/promises,module') throw new Error(`${kind} bundle: unexpected dynamic imports ${imports.join()}`);
  // __foresightImport is defined inside the wrapper, so no function of the loader outlives the load: the file's
  // source, which the loader's script holds, can then be collected (only the bundle's own source stays in memory).
  const source =
    '(function (exports, require, module, __filename, __dirname) {const __foresightImport = (s) => Promise.resolve().then(() => require(s));' + body + '\n})';
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const close = ['*~/', '*#/', '*@~/', '*~@#/'].find((c) => !source.includes(c));
  if (!close) throw new Error(`${kind} bundle: no free comment-terminator escape`);
  const loader = await loaderBuild;
  const num = (n) => String(n).padStart(10, ' ');
  const header = (start, end) => `const __foresightWrapped = { kind: ${JSON.stringify(kind)}, hash: ${JSON.stringify(hash)}, close: ${JSON.stringify(close)}, start: ${num(start)}, end: ${num(end)} };\n`;
  // The bundle is a comment inside a function that never runs: the loader takes it from the function's source text
  // (V8 holds it already) instead of reading the 4 MB file a second time.
  const holder = 'function __foresightBundle() {/*';
  const escaped = source.replaceAll('*/', close);
  // Renamed into place: a run starting while dist/ is rebuilt reads the old file or the new one, never half of one.
  writeFileSync(`${out}.${process.pid}.tmp`, header(holder.length, holder.length + escaped.length) + loader.outputFiles[0].text + holder + escaped + '*/}\n');
  renameSync(`${out}.${process.pid}.tmp`, out);
  writeFileSync(`${out}.map`, map.contents);
}
