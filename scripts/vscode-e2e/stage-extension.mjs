// Lays out the extension as it ships (what `npm run package` puts in the .vsix): package.json, dist/ (bundles,
// tree-sitter WebAssembly, and the fcntl lock addon under dist/native/ where flock.ts finds it), syntaxes/,
// language-configuration.json, media/ (icons), README.md, LICENSE, examples/ (the example workspace the welcome
// view's "Open Example Workspace" copies) and docs/images/ (README's screenshots). Used by the package script, the demo and
// the UI test, so they all run the extension a user installs, not the development tree.
//   stageExtension(root, dest) → dest
import fs from 'node:fs';
import path from 'node:path';

export const SHIPPED = ['package.json', 'dist', 'syntaxes', 'language-configuration.json', 'media', 'README.md', 'LICENSE', 'examples', 'docs/images'];

export function stageExtension(root, dest) {
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(dest, { recursive: true });
  for (const f of SHIPPED) {
    const src = path.join(root, f);
    if (!fs.existsSync(src)) throw new Error(`${src} is missing (run npm run build first)`);
    fs.cpSync(src, path.join(dest, f), {
      recursive: true,
      // Source maps and the benchmark bundle are development files.
      filter: (p) => !p.endsWith('.map') && path.basename(p) !== 'bench.js',
    });
  }
  const addon = path.join(root, 'native/fcntl/build/Release/fcntl_lock.node');
  if (fs.existsSync(addon)) {
    const to = path.join(dest, 'dist/native/fcntl/build/Release');
    fs.mkdirSync(to, { recursive: true });
    fs.copyFileSync(addon, path.join(to, 'fcntl_lock.node'));
  }
  // The packaged manifest has no development scripts or dependencies.
  const pkg = JSON.parse(fs.readFileSync(path.join(dest, 'package.json'), 'utf8'));
  delete pkg.devDependencies;
  delete pkg.dependencies;
  delete pkg.bin;
  pkg.scripts = {};
  fs.writeFileSync(path.join(dest, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  return dest;
}
