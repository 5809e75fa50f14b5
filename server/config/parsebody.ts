// Reads one HCL file (a lock file, a .tfvars file, the CLI configuration) into a generic Body: by the fast lane
// (fastbody.ts) when the hand-written syntax check finds no error and the fast lane is sure of the result, else by
// tree-sitter, which is loaded then (syntax/treesitter.ts says why it is loaded only when needed). Both paths give
// the same Body (test/config/fastbody.test.ts) and the same syntax diagnostics.

import type { Diagnostic } from '../diags/diagnostic';
import { analyzeSyntax } from '../syntax/errors';
import { initParser, newParser } from '../syntax/treesitter';
import { fastBody } from './fastbody';
import type { Body } from './hclbody';
import { bodyFromTree } from './hclbody';
import { SourceText } from './source';

export interface HclFile {
  /** Undefined only when tree-sitter returned no tree. */
  body?: Body;
  src: SourceText;
  /** The syntax check's diagnostics. */
  syntax: Diagnostic[];
  /** Errors found while building the body ("Expression too deeply nested"). */
  conversion: Diagnostic[];
}

export async function readHclBody(text: string, filename: string): Promise<HclFile> {
  const src = new SourceText(filename, text);
  const syn = analyzeSyntax(text, filename, undefined, { structure: true, src });
  if (syn.structure && syn.diagnostics.length === 0) {
    const body = fastBody(syn.structure, src);
    if (body) return { body, src, syntax: [], conversion: [] };
  }
  await initParser();
  const parser = newParser();
  const tree = parser.parse(text);
  parser.delete();
  if (!tree) return { src, syntax: [], conversion: [] };
  try {
    const syntax = analyzeSyntax(text, filename, tree).diagnostics;
    const conversion: Diagnostic[] = [];
    const body = bodyFromTree(tree.rootNode, src, conversion);
    return { body, src, syntax, conversion };
  } finally {
    tree.delete();
  }
}
