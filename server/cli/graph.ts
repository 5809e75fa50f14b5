// `foresight graph` (Terraform 1.11's command/graph.go default mode): the resources of the configuration as a
// DOT digraph, one node per resource (module resources inside "cluster_<module>" subgraphs) and one edge per
// direct dependency (the transitive reduction of the resource dependency relation).
//
// Contract: output is deterministic (nodes and edges sorted); configuration errors print as diagnostics, exit 1.

import { buildConfigGraph } from '../engine/context';
import { renderDiagnosticsView } from '../diags/render';
import { helpText } from './help/index';
import type { CliIO } from './io';
import { loadConfig } from './plan';
import { makeUi, stripNoColor, wantsHelp } from './state/meta';
import { backendOpenErrors } from '../backends/registry';

export async function runGraph(rawArgs: string[], io: CliIO): Promise<number> {
  if (wantsHelp(rawArgs)) {
    io.stdout(helpText('graph'));
    return 0;
  }
  const { color } = stripNoColor(rawArgs);
  const cfg = await loadConfig(io, color);
  if (!('module' in cfg)) {
    for (const d of cfg.diags) io.stderr(renderDiagnosticsView([d], cfg.render));
    return 1;
  }
  // Terraform's graph opens the backend first (Backend()); its errors go through the command's Ui.
  const be = await backendOpenErrors(io.cwd, io.env, cfg.module);
  if (be.length) {
    makeUi(io, color).diagnostics(be);
    return 1;
  }
  const built = buildConfigGraph(cfg.module);
  const deps = built.resourceDeps;
  const nodes = [...built.resourceNodes.keys()].filter((a) => !/(^|\.)data\./.test(a.replace(/^(module\.[^.]+\.)+/, '')) || true).sort();
  const modOf = (a: string) => {
    const m = /^((?:module\.[^.]+\.)*)/.exec(a)![1];
    return m.replace(/\.$/, '');
  };
  let out = 'digraph G {\n  rankdir = "RL";\n  node [shape = rect, fontname = "sans-serif"];\n';
  const byMod = new Map<string, string[]>();
  for (const n of nodes) {
    const m = modOf(n);
    if (!byMod.has(m)) byMod.set(m, []);
    byMod.get(m)!.push(n);
  }
  for (const n of byMod.get('') ?? []) out += `  ${JSON.stringify(n)} [label=${JSON.stringify(n)}];\n`;
  for (const m of [...byMod.keys()].filter((k) => k).sort()) {
    out += `  subgraph ${JSON.stringify('cluster_' + m)} {\n    label = ${JSON.stringify(m)}\n    fontname = "sans-serif"\n`;
    for (const n of byMod.get(m)!) out += `    ${JSON.stringify(n)} [label=${JSON.stringify(n.slice(m.length + 1))}];\n`;
    out += '  }\n';
  }
  const edges: string[] = [];
  for (const a of nodes) {
    const ds = (deps.get(a) ?? []).filter((d) => built.resourceNodes.has(d));
    for (const d of ds) {
      // Transitive reduction: skip a -> d when some other dependency of a already depends on d.
      if (ds.some((o) => o !== d && (deps.get(o) ?? []).includes(d))) continue;
      edges.push(`  ${JSON.stringify(a)} -> ${JSON.stringify(d)};\n`);
    }
  }
  out += edges.sort().join('') + '}\n';
  io.stdout(out);
  return 0;
}
