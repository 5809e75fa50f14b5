#!/usr/bin/env node
// UI test: the installed extension in a real VS Code workbench (code-server) driven by Playwright in Debian's
// Chromium, as a user would use it on a copy of examples/:
//   open the workspace and main.tf → the preview's inlay hints and code lenses appear → type a wrong reference
//   and see its diagnostic (squiggle + Problems count) → undo → hover a resource and read its planned value →
//   Foresight: Plan → the Resources tree → Show Planned Diff (diff editor) → Foresight: Apply from the palette →
//   the modal confirmation lists what is created → Apply → the Runs tree shows the apply succeeded → the state
//   file holds the six instances.
// Screenshots go to docs/images/ (used by README; `npm run test:ui` refreshes them) or to --screenshots DIR
// (`npm test` uses .test-work/ so a test run leaves the work tree clean). Exit 0 when every check passed.
//   node test/ui/ui.mjs [--skip-install] [--headed] [--keep] [--screenshots DIR]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const e2e = path.join(root, 'scripts/vscode-e2e');
const { values: opts } = parseArgs({
  options: {
    'skip-install': { type: 'boolean', default: false },
    headed: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    screenshots: { type: 'string', default: 'docs/images' },
  },
});
const cache = path.join(root, '.vscode-test');
const images = path.resolve(root, opts.screenshots);
const t0 = Date.now();
const say = (m) => console.log(`[ui ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
let checks = 0;
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
  checks++;
  say(`ok ${checks} - ${what}`);
}

if (!opts['skip-install']) execFileSync('bash', [path.join(e2e, 'install.sh'), cache], { stdio: 'inherit' });
else if (!fs.existsSync(path.join(cache, 'code-server'))) execFileSync('bash', [path.join(e2e, 'install.sh'), cache], { stdio: 'inherit' });
execFileSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
const { startCodeServer, launchBrowser, workbenchUrl, waitForWorkbench, runCommand, openFile, readTreeView } = await import(path.join(e2e, 'lib.mjs'));
const { stageExtension } = await import(path.join(e2e, 'stage-extension.mjs'));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-ui-'));
const ws = path.join(work, 'examples');
fs.cpSync(path.join(root, 'examples'), ws, { recursive: true });
execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '-input=false', '-no-color'], { cwd: ws, stdio: 'pipe' });
const staged = stageExtension(root, path.join(work, 'extension'));
fs.mkdirSync(images, { recursive: true });

let server;
let browser;
let status = 1;
const cleanup = async () => {
  if (browser) await browser.close().catch(() => {});
  if (server) await server.stop();
  if (!opts.keep) fs.rmSync(work, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => cleanup().finally(() => process.exit(130)));

try {
  server = await startCodeServer({ cacheDir: cache, installExtensions: [staged] });
  say(`code-server ${server.url} (pid ${server.pid}), installed ${server.installed.map((i) => i.id).join(', ')}`);
  // Quiet, deterministic workbench for the screenshots. The editor inserts exactly the text the test gives it: no
  // auto-closed brackets or quotes, no auto-indentation (a loaded fresh-clone run got an extra '}' after the inserted
  // output block, a syntax error instead of the diagnostic the step waits for).
  const settings = path.join(server.userDataDir, 'User', 'settings.json');
  const quiet = { 'workbench.colorTheme': 'Default Light Modern', 'editor.minimap.enabled': false, 'git.enabled': false, 'files.autoSave': 'off' };
  const literal = { 'editor.autoClosingBrackets': 'never', 'editor.autoClosingQuotes': 'never', 'editor.autoClosingOvertype': 'never', 'editor.autoIndent': 'none', 'editor.formatOnType': false };
  fs.writeFileSync(settings, JSON.stringify({ ...JSON.parse(fs.readFileSync(settings, 'utf8')), ...quiet, ...literal }, null, 2));
  browser = await launchBrowser(cache, { headless: !opts.headed });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(workbenchUrl(server, { folder: ws }));
  await waitForWorkbench(page);
  say('workbench open on the example workspace');
  // The empty secondary side bar only takes room from the screenshots.
  await runCommand(page, 'View: Close Secondary Side Bar', 5000).catch(() => runCommand(page, 'View: Hide Secondary Side Bar', 5000)).catch(() => page.keyboard.press('Escape'));

  // ---- the editor: preview inlay hints, diagnostics, hover --------------------------------------------------
  await openFile(page, 'main.tf');
  const lens = page.locator('.monaco-editor .codelens-decoration');
  await page.waitForFunction(() => [...document.querySelectorAll('.monaco-editor .codelens-decoration')].some((e) => /Plan this/.test(e.textContent ?? '')), null, { timeout: 60000 });
  const lensText = (await lens.allInnerTexts()).join(' | ');
  check(/\+ create ×3/.test(lensText) && /Plan this/.test(lensText) && /Apply this/.test(lensText), `code lenses show the preview and offer Plan this / Apply this (${lensText.slice(0, 60)}...)`);

  // A reference to an undeclared variable, typed (not saved): the diagnostic appears.
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  // Inserted whole, not typed key by key, and with auto-closing off (the settings above): auto-closing of '{'
  // depends on how far the tokenizer has got with the characters before it, which on a loaded machine left the block
  // unclosed once, and closed twice another time (a syntax error instead of the one this step is about).
  await page.keyboard.insertText('output "oops" {\n  value = var.nope\n}\n');
  await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30000 });
  check(true, 'a squiggle marks the undeclared variable');
  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)').catch(() => runCommand(page, 'View: Toggle Problems (Errors, Warnings, Infos)'));
  const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'Reference to undeclared input variable' }).first();
  await problem.waitFor({ timeout: 30000 });
  check(true, 'the Problems panel lists "Reference to undeclared input variable"');
  await page.screenshot({ path: path.join(images, 'diagnostics.png') });
  await page.locator('.monaco-editor .view-lines').first().click();
  await runCommand(page, 'File: Revert File');
  await problem.waitFor({ state: 'detached', timeout: 30000 });
  check(true, 'reverting the file clears the diagnostic from the Problems panel');
  await runCommand(page, 'View: Hide Panel', 5000).catch(() => runCommand(page, 'View: Close Panel', 5000)).catch(() => {});
  await page.keyboard.press('Control+Home');

  // Hover the resource name of terraform_data.bucket: the planned values.
  await page.locator('.monaco-editor').first().click();
  const token = page.locator('.editor-instance .view-lines span', { hasText: /^"?bucket"?$/ }).first();
  await token.waitFor({ timeout: 15000 });
  const hover = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content, .monaco-resizable-hover .monaco-hover-content').first();
  // On a loaded fresh-clone run no hover came within 20 s (once in ten runs; the hover widget stayed hidden). The
  // likely cause: the preview made after the revert refreshes the code lenses, and a lens line coming or going moves
  // the lines below it, leaving the pointer beside the token. So the pointer is moved to where the token is now,
  // again (away and back), while no hover shows.
  for (let attempt = 1; ; attempt++) {
    // The token's line can be re-rendered (the lenses refreshed) between finding the token and measuring it: a
    // fresh-clone run got no box once. It is measured again until it has one.
    let box = null;
    for (let k = 0; k < 40 && !box; k++) {
      box = await token.boundingBox();
      if (!box) await page.waitForTimeout(250);
    }
    if (!box) throw new Error('the "bucket" token stayed off screen for 10 s');
    await page.mouse.move(box.x + 4, box.y + box.height / 2);
    await page.mouse.move(box.x + 10, box.y + box.height / 2);
    const shown = await hover.waitFor({ state: 'visible', timeout: attempt < 3 ? 8000 : 20000 }).then(() => true, (e) => {
      if (attempt >= 3) throw e;
      return false;
    });
    if (shown) break;
    await page.mouse.move(0, 0);
    await page.waitForTimeout(500);
  }
  const hoverText = (await hover.innerText()).trim();
  check(/foresight-staging-logs/.test(hoverText) || /foresight-staging-assets/.test(hoverText), `hovering "bucket" shows its planned value (${hoverText.split('\n').slice(0, 3).join(' / ')})`);
  await page.screenshot({ path: path.join(images, 'hover.png') });
  await page.keyboard.press('Escape');

  // ---- Plan, the Resources tree, the planned diff -----------------------------------------------------------
  await runCommand(page, 'Foresight: Plan');
  await runCommand(page, 'Foresight: Focus on Resources View');
  // A wider side bar, so the descriptions show in the screenshots: drag the sash beside it.
  const side = await page.locator('.part.sidebar').boundingBox().catch(() => null);
  if (side) {
    const x = side.x + side.width + 1;
    await page.mouse.move(x, 430);
    await page.mouse.down();
    await page.mouse.move(x + 200, 430, { steps: 8 });
    await page.mouse.up();
  }
  const rows = await readTreeView(page, 'Resources', { minItems: 3, timeout: 60000 });
  check(rows.some((r) => r.includes('terraform_data.server') && r.includes('3 instances: +3')), `the Resources tree shows terraform_data.server with 3 creates (${rows.join(' | ')})`);
  check(rows.some((r) => r.includes('module.greeting')), 'the Resources tree shows module.greeting');
  await page.screenshot({ path: path.join(images, 'resources.png') });

  const instance = page.locator('.pane-body .monaco-list-row', { hasText: '[1]' }).first();
  await instance.click({ button: 'right' });
  // The context menu can take the first click while it is still settling (seen on a loaded machine: the menu stayed
  // open with the item highlighted); wait for the item, and if the menu is still open, activate the item again.
  const menuItem = page.locator('.monaco-menu .action-label', { hasText: 'Show Planned Diff' }).first();
  await menuItem.waitFor({ state: 'visible', timeout: 30000 });
  await page.waitForTimeout(300);
  await menuItem.click();
  await page.waitForTimeout(1000);
  if (await menuItem.isVisible().catch(() => false)) await menuItem.click();
  await page.waitForFunction(() => /foresight-staging-server-1/.test(document.querySelector('.monaco-diff-editor')?.textContent ?? ''), null, { timeout: 30000 }).catch(() => {});
  const diffText = await page.locator('.monaco-diff-editor').first().innerText();
  check(/foresight-staging-server-1/.test(diffText), 'Show Planned Diff (context menu) opens the diff editor with the planned input');
  await page.screenshot({ path: path.join(images, 'planned-diff.png') });

  // ---- Apply from the palette, confirm, watch the Runs tree ---------------------------------------------------
  await runCommand(page, 'Foresight: Apply');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 60000 });
  const dialogText = await dialog.innerText();
  check(/Apply this plan\?/.test(dialogText) && /Create \(6\):/.test(dialogText) && /terraform_data\.server\[2\]/.test(dialogText), 'the modal confirmation lists the 6 creates');
  await page.screenshot({ path: path.join(images, 'confirm-apply.png') });
  await dialog.locator('.monaco-button', { hasText: /^Apply$/ }).click();
  await runCommand(page, 'Foresight: Focus on Runs View');
  await page.waitForFunction(() => [...document.querySelectorAll('.pane-body .monaco-list-row')].some((r) => /Apply .*6 added, 0 changed, 0 destroyed · succeeded/.test(r.textContent ?? '')), null, { timeout: 120000 });
  const runs = await readTreeView(page, 'Runs', { minItems: 2 });
  check(runs.some((r) => /^Apply/.test(r) && /6 added, 0 changed, 0 destroyed/.test(r) && /succeeded/.test(r)), `the Runs tree shows the apply succeeded (${runs.join(' | ')})`);
  await page.screenshot({ path: path.join(images, 'runs.png') });

  const state = JSON.parse(fs.readFileSync(path.join(ws, 'terraform.tfstate'), 'utf8'));
  const instances = state.resources.reduce((n, r) => n + r.instances.length, 0);
  check(instances === 6, `terraform.tfstate holds 6 instances (serial ${state.serial})`);
  // ---- after the apply: an unsaved edit changes the preview; the inlay hint shows prior → planned ----------
  await runCommand(page, 'View: Close All Editors');
  await openFile(page, 'main.tf');
  const input = page.locator('.editor-instance .view-lines span', { hasText: /each\.key/ }).first();
  await input.waitFor({ timeout: 15000 });
  await input.click();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('-v2');
  await page.waitForFunction(() => /→/.test(document.querySelector('.monaco-editor .view-lines')?.textContent ?? ''), null, { timeout: 60000 });
  const hintLine = (await page.locator('.monaco-editor .view-lines .view-line', { hasText: '→' }).first().innerText()).trim();
  // Long values are cut at 40 characters by the server (`"foresight-staging-assets" → "fo…`).
  check(/\["(assets|logs)"\] "foresight-staging-(assets|logs)" → "fo/.test(hintLine.replace(/\s+/g, ' ')), `an inlay hint shows the prior and planned value of the edited input (${hintLine})`);
  await page.waitForFunction(() => /~ update in-place ×2/.test([...document.querySelectorAll('.monaco-editor .codelens-decoration')].map((e) => e.textContent).join(' ')), null, { timeout: 30000 });
  check(true, 'the code lens says "~ update in-place ×2" for the unsaved edit');
  await page.screenshot({ path: path.join(images, 'editor-preview.png') });
  const statusBar = await page.locator('.part.statusbar').innerText();
  check(/default \+0 ~2 -0/.test(statusBar), `the status bar shows the workspace and the preview summary (${statusBar.split('\n').find((l) => /default/.test(l))})`);
  await runCommand(page, 'File: Revert File');

  // ---- the progress notification's Cancel button stops a running apply ----------------------------------------
  fs.writeFileSync(path.join(ws, 'slow.tf'), 'resource "time_sleep" "wait" {\n  create_duration = "60s"\n}\n');
  execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '-input=false', '-no-color'], { cwd: ws, stdio: 'pipe' });
  await runCommand(page, 'Foresight: Apply');
  const confirm2 = page.locator('.monaco-dialog-box');
  await confirm2.waitFor({ timeout: 60000 });
  await confirm2.locator('.monaco-button', { hasText: /^Apply$/ }).click();
  // The Runs tree shows the run's progress live.
  await page.waitForFunction(() => [...document.querySelectorAll('.pane-body .monaco-list-row')].some((r) => /time_sleep\.wait: Creating\.\.\./.test(r.textContent ?? '')), null, { timeout: 30000 });
  check(true, 'the Runs tree shows the running apply with "time_sleep.wait: Creating..." under it');
  await page.screenshot({ path: path.join(images, 'run-progress.png') });
  // Toasts do not show in headless Chromium (see scripts/vscode-e2e/README.md): the progress notification is in
  // the Notification Center, with its Cancel button.
  await runCommand(page, 'Notifications: Show Notifications');
  const note = page.locator('.notifications-center .notification-list-item', { hasText: 'Foresight: Applying' }).first();
  await note.waitFor({ timeout: 30000 });
  const noteText = (await note.innerText()).replace(/\s+/g, ' ');
  check(/time_sleep\.wait: Creating/.test(noteText), `the progress notification shows the resource's progress line (${noteText.slice(0, 80)})`);
  const t1 = Date.now();
  await note.hover();
  await note.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await page.waitForFunction(() => [...document.querySelectorAll('.pane-body .monaco-list-row')].some((r) => /^Apply .*cancelled/.test((r.textContent ?? '').trim())), null, { timeout: 70000 });
  check(Date.now() - t1 < 55000, `its Cancel button stops the apply: the Runs tree says cancelled after ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  say(`${checks} checks passed; screenshots in ${path.relative(root, images)}/`);
  status = 0;
} catch (e) {
  console.error(`[ui] FAILED: ${e && e.stack ? e.stack : e}`);
  try {
    const pages = browser ? browser.contexts().flatMap((c) => c.pages()) : [];
    if (pages[0]) await pages[0].screenshot({ path: path.join(work, 'failure.png') });
    if (pages[0]) console.error(`[ui] screenshot of the failure: ${path.join(work, 'failure.png')}`);
  } catch {
    /* ignore */
  }
  opts.keep = true;
} finally {
  await cleanup();
  say(status === 0 ? 'PASSED' : 'FAILED');
  process.exit(status);
}
