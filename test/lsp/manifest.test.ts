// The extension manifest (package.json "contributes"/"activationEvents") agrees with the code and files it
// names: command ids with server/lsp/protocol.ts, the grammar and language configuration with syntaxes/ and
// language-configuration.json, the entry points with the esbuild bundles.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Commands } from '../../server/lsp/protocol';

const root = process.cwd();
const json = (p: string) => JSON.parse(readFileSync(join(root, p), 'utf8'));

interface Manifest {
  main: string;
  activationEvents: string[];
  contributes: {
    languages: { id: string; extensions: string[]; configuration: string }[];
    grammars: { language: string; scopeName: string; path: string }[];
    commands: { command: string; title: string; category?: string }[];
  };
}

test('the manifest contributes the terraform language, its grammar and the commands', () => {
  const m = json('package.json') as Manifest;
  assert.equal(m.main, './dist/client.js');
  assert.ok(existsSync(join(root, m.main)), 'the client bundle is built');
  assert.ok(m.activationEvents.includes('onLanguage:terraform'));

  const lang = m.contributes.languages.find((l) => l.id === 'terraform');
  assert.ok(lang);
  assert.deepEqual([...lang.extensions].sort(), ['.tf', '.tfvars']);
  const conf = json(lang.configuration);
  assert.deepEqual(conf.comments, { lineComment: '#', blockComment: ['/*', '*/'] });
  assert.deepEqual(conf.brackets, [['{', '}'], ['[', ']'], ['(', ')']]);
  assert.ok(conf.autoClosingPairs.some((p: { open: string }) => p.open === '"'));
  assert.ok(conf.indentationRules.increaseIndentPattern && conf.indentationRules.decreaseIndentPattern);
  assert.ok(conf.folding.markers.start);
  assert.match('  resource "a" "b" {', new RegExp(conf.indentationRules.increaseIndentPattern));
  assert.match('  }', new RegExp(conf.indentationRules.decreaseIndentPattern));

  const g = m.contributes.grammars.find((x) => x.language === 'terraform');
  assert.ok(g);
  assert.equal(json(g.path).scopeName, g.scopeName);

  assert.deepEqual(
    m.contributes.commands.map((c) => c.command).sort(),
    Object.values(Commands).sort(),
    'every command in the protocol table is contributed, and no other',
  );
  for (const c of m.contributes.commands) assert.ok(c.title && c.category === 'Foresight');
});

test('the client bundle leaves vscode external and starts the server bundle', () => {
  const client = readFileSync(join(root, 'dist/client.js'), 'utf8');
  assert.match(client, /require\("vscode"\)/);
  assert.match(client, /dist\/server\.js/);
  assert.ok(existsSync(join(root, 'dist/server.js')));
});

interface FullManifest {
  icon: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string | boolean; description?: string } };
  scripts: Record<string, string>;
  contributes: {
    commands: { command: string; title: string; icon?: string }[];
    viewsContainers: { activitybar: { id: string; title: string; icon: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    viewsWelcome: { view: string; contents: string; when?: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    keybindings: { command: string; key: string; when?: string }[];
    configuration: { properties: Record<string, { type: string; default: unknown; enum?: string[] }> };
  };
}

test('the manifest contributes the views, their menus, keybindings, settings and the trust mode', () => {
  const m = json('package.json') as FullManifest;
  const c = m.contributes;
  const ids = new Set(c.commands.map((x) => x.command));

  // Titles as the issue names them in the palette ("Foresight: Plan").
  const titles = Object.fromEntries(c.commands.map((x) => [x.command, x.title]));
  assert.equal(titles[Commands.plan], 'Plan');
  assert.equal(titles[Commands.planDestroy], 'Plan Destroy');
  assert.equal(titles[Commands.refreshState], 'Refresh State');
  assert.equal(titles[Commands.apply], 'Apply');
  assert.equal(titles[Commands.applySavedPlan], 'Apply Saved Plan');
  assert.equal(titles[Commands.planResource], 'Plan This Resource');
  assert.equal(titles[Commands.applyResource], 'Apply This Resource');
  assert.equal(titles[Commands.replaceResource], 'Replace This Resource');
  assert.equal(titles[Commands.showPlannedDiff], 'Show Planned Diff');
  assert.equal(titles[Commands.selectWorkspace], 'Select Workspace');
  assert.equal(titles[Commands.cancelRun], 'Cancel Run');
  assert.equal(titles[Commands.showOutput], 'Show Output');
  assert.equal(titles[Commands.restartLanguageServer], 'Restart Language Server');

  // One activity bar container holding the two views; the icons ship with the extension.
  assert.deepEqual(c.viewsContainers.activitybar.map((x) => x.id), ['foresight']);
  assert.ok(existsSync(join(root, c.viewsContainers.activitybar[0].icon)));
  assert.ok(existsSync(join(root, m.icon)));
  assert.match(m.icon, /\.png$/, 'the marketplace wants a PNG icon');
  assert.deepEqual(c.views.foresight.map((v) => [v.id, v.name]), [['foresight.resources', 'Resources'], ['foresight.runs', 'Runs']]);
  for (const v of ['foresight.resources', 'foresight.runs']) assert.ok(m.activationEvents.includes(`onView:${v}`));
  assert.ok(m.activationEvents.includes('workspaceContains:**/*.tf'));
  assert.ok(m.activationEvents.includes('workspaceContains:**/*.tf.json'));

  // Welcome: without .tf files, an Open Folder link; untrusted, why runs are off.
  const welcome = c.viewsWelcome.filter((w) => w.view === 'foresight.resources');
  const noFiles = welcome.find((w) => w.when?.includes('!foresight.hasTerraformFiles'));
  assert.ok(noFiles && noFiles.contents.includes('(command:vscode.openFolder)') && noFiles.contents.includes(`(command:${Commands.openExample})`));
  assert.equal(titles[Commands.openExample], 'Open Example Workspace');
  const untrusted = welcome.find((w) => w.when?.includes('!isWorkspaceTrusted'));
  assert.ok(untrusted && untrusted.contents.includes('not trusted'));

  // Menus name only contributed commands; the tree menus offer what the issue lists.
  for (const [menu, entries] of Object.entries(c.menus)) {
    for (const e of entries) assert.ok(ids.has(e.command), `${menu} names ${e.command}, which is not contributed`);
  }
  const itemMenu = c.menus['view/item/context'];
  const onInstance = (cmd: string) => itemMenu.some((e) => e.command === cmd && e.when?.includes('view == foresight.resources'));
  for (const cmd of [Commands.planResource, Commands.applyResource, Commands.replaceResource, Commands.showPlannedDiff, Commands.showInState, Commands.refreshResource]) {
    assert.ok(onInstance(cmd), `${cmd} is in the Resources context menu`);
  }
  assert.ok(itemMenu.some((e) => e.command === Commands.cancelRun && e.when?.includes('view == foresight.runs') && e.group?.startsWith('inline')));
  const titleMenu = c.menus['view/title'];
  assert.ok(titleMenu.some((e) => e.command === Commands.plan && e.when === 'view == foresight.resources' && e.group?.startsWith('navigation')));
  assert.ok(titleMenu.some((e) => e.command === Commands.apply && e.when === 'view == foresight.resources'));

  // The palette: every command but restart/showOutput is gated by a when clause.
  const palette = new Map(c.menus.commandPalette.map((e) => [e.command, e.when]));
  assert.equal(palette.get(Commands.cancelRun), 'foresight.runActive');
  assert.equal(palette.get(Commands.applySavedPlan), 'foresight.active && foresight.hasSavedPlan');
  for (const cmd of [Commands.plan, Commands.apply, Commands.planDestroy, Commands.refreshState]) assert.equal(palette.get(cmd), 'foresight.active');

  // The context values the client gives tree items match the when clauses that need them.
  const re = (cmd: string) => itemMenu.filter((e) => e.command === cmd).map((e) => new RegExp(/viewItem =~ \/(.*)\//.exec(e.when ?? '')![1]));
  assert.ok(re(Commands.replaceResource).every((r) => r.test('instance managed inState changed')));
  assert.ok(re(Commands.replaceResource).every((r) => !r.test('instance managed changed')), 'nothing to replace when not in the state');
  assert.ok(re(Commands.showInState).every((r) => !r.test('instance managed')));
  assert.ok(re(Commands.cancelRun).every((r) => r.test('run plan running') && !r.test('run plan succeeded savedPlan')));

  // Keybindings are scoped.
  for (const k of c.keybindings) assert.ok(ids.has(k.command) && k.when, `${k.command} keybinding has a when clause`);
  assert.deepEqual(c.keybindings.find((k) => k.command === Commands.plan), { command: Commands.plan, key: 'ctrl+alt+p', mac: 'cmd+alt+p', when: 'editorLangId == terraform' });

  // Settings the issue lists, with their defaults.
  const p = c.configuration.properties;
  const defaults = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.default]));
  assert.deepEqual(defaults, {
    'foresight.preview.enabled': true,
    'foresight.preview.debounceMs': 400,
    'foresight.refresh': 'refresh',
    'foresight.parallelism': 10,
    'foresight.lockTimeout': '0s',
    'foresight.varFiles': [],
    'foresight.vars': {},
    'foresight.apply.confirm': true,
    'foresight.inlayHints.plannedValues': true,
    'foresight.inlayHints.knownAfterApply': true,
    'foresight.inlayHints.forcesReplacement': true,
    'foresight.trace.server': 'off',
  });
  assert.deepEqual(p['foresight.trace.server'].enum, ['off', 'messages', 'verbose']);
  assert.deepEqual(p['foresight.refresh'].enum, ['refresh', 'skip']);

  // Untrusted workspaces: limited support, said why.
  assert.equal(m.capabilities.untrustedWorkspaces.supported, 'limited');
  assert.match(m.capabilities.untrustedWorkspaces.description ?? '', /no provider code runs/);

  for (const s of ['test:e2e', 'demo', 'package']) assert.ok(m.scripts[s], `npm run ${s}`);
});

test('the packaged extension (the .vsix file set) is self-contained', async () => {
  const { mkdtempSync, readdirSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  // @ts-expect-error: a plain .mjs module without type declarations
  const { stageExtension } = (await import('../../scripts/vscode-e2e/stage-extension.mjs')) as { stageExtension(root: string, dest: string): string };
  const dest = join(mkdtempSync(join(tmpdir(), 'foresight-stage-')), 'ext');
  try {
    stageExtension(root, dest);
    assert.deepEqual(readdirSync(dest).sort(), ['LICENSE', 'README.md', 'dist', 'docs', 'examples', 'language-configuration.json', 'media', 'package.json', 'syntaxes']);
    // README's screenshots and the example workspace the welcome view opens are inside the package.
    for (const m of readFileSync(join(root, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) assert.ok(existsSync(join(dest, m[1])), `${m[1]} is packaged`);
    assert.ok(existsSync(join(dest, 'examples/main.tf')));
    const m = JSON.parse(readFileSync(join(dest, 'package.json'), 'utf8')) as FullManifest & Manifest & { devDependencies?: unknown };
    assert.equal(m.devDependencies, undefined);
    assert.deepEqual(m.scripts, {});
    // Every file the manifest names is inside the package.
    const named = [m.main, m.icon, ...m.contributes.viewsContainers.activitybar.map((c) => c.icon), ...m.contributes.grammars.map((g) => g.path), ...m.contributes.languages.map((l) => l.configuration)];
    for (const f of named) assert.ok(existsSync(join(dest, f)), `${f} is packaged`);
    // The bundles need nothing from node_modules: the server, its WebAssembly, no source maps, no benchmark.
    const dist = readdirSync(join(dest, 'dist')).sort();
    for (const f of ['client.js', 'server.js', 'cli.js', 'web-tree-sitter.wasm', 'tree-sitter-terraform.wasm']) assert.ok(dist.includes(f), `dist/${f}`);
    assert.deepEqual(dist.filter((f) => f.endsWith('.map') || f === 'bench.js'), []);
  } finally {
    rmSync(dirname(dest), { recursive: true, force: true });
  }
});

test('.tf.json files get a JSON schema of Terraform\'s JSON syntax; it knows the top-level blocks of every valid recorded .tf.json', () => {
  const m = json('package.json') as { contributes: { jsonValidation: { fileMatch: string[]; url: string }[] } };
  const v = m.contributes.jsonValidation.find((j) => j.fileMatch.includes('*.tf.json'));
  assert.ok(v);
  const schema = JSON.parse(readFileSync(join(root, v.url), 'utf8')) as { definitions: { file: { properties: Record<string, unknown>; additionalProperties: boolean } } };
  assert.equal(schema.definitions.file.additionalProperties, false);
  const known = new Set(Object.keys(schema.definitions.file.properties));
  for (const b of ['terraform', 'provider', 'variable', 'output', 'locals', 'module', 'resource', 'data', 'check', 'moved', 'import', 'removed', '//']) assert.ok(known.has(b), b);
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.tf.json')) files.push(join(d, e.name));
    }
  };
  walk(join(root, 'test/data'));
  let checked = 0;
  for (const f of files) {
    if (f.includes('/errors/')) continue; // configurations that are wrong on purpose (terraform's errors recorded)
    const doc = JSON.parse(readFileSync(f, 'utf8')) as unknown;
    // The root may be an array of objects (HCL's JSON syntax merges them).
    for (const part of Array.isArray(doc) ? doc : [doc]) for (const k of Object.keys(part as object)) assert.ok(known.has(k), `${f}: ${k}`);
    checked++;
  }
  assert.ok(checked >= 10, `${checked} files checked`);
});
