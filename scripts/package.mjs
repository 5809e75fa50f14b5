#!/usr/bin/env node
// `npm run package`: builds the bundles and packs the extension into foresight-<version>.vsix with @vscode/vsce.
// The .vsix holds only what scripts/vscode-e2e/stage-extension.mjs lays out: package.json, dist/ (bundles,
// WebAssembly, the fcntl lock addon), syntaxes/, language-configuration.json, media/ (icons), README.md, LICENSE,
// examples/ and docs/images/.
// Prints the file list and checks that nothing else slipped in.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHIPPED, stageExtension } from './vscode-e2e/stage-extension.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const staged = stageExtension(root, path.join(root, '.test-work', 'package', 'extension'));
const out = path.join(root, `${pkg.name}-${pkg.version}.vsix`);
const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce');
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out], {
  cwd: staged,
  stdio: 'inherit',
});
const listing = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: staged, encoding: 'utf8' }).trim().split('\n');
const allowed = new Set(SHIPPED.map((f) => f.split('/')[0]));
const stray = listing.filter((f) => !allowed.has(f.split('/')[0]));
if (stray.length) {
  console.error(`package: files outside ${[...allowed].join(', ')}: ${stray.join(', ')}`);
  process.exit(1);
}
console.log(`${path.relative(root, out)}: ${listing.length} files, ${(fs.statSync(out).size / 1024 / 1024).toFixed(1)} MB`);
