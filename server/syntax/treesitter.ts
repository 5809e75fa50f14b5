// Loads web-tree-sitter and the Terraform grammar once per process.
//
// Contract: call `await initParser()` once before `newParser()`. Trees returned by a parser live on the
// WebAssembly heap and are not garbage-collected: whoever parses owns the tree and must call tree.delete()
// when it is no longer needed (see syntax/document.ts, which does this for edited documents).

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

export type { Node as SyntaxNode, Tree, Edit, Point } from 'web-tree-sitter';
export { Parser };

let language: Language | undefined;
let initPromise: Promise<void> | undefined;

/** Finds a file shipped beside the bundle (dist/), falling back to the repository's dist/ and node_modules. */
function locate(name: string, packageDir: string): string {
  const dirs: string[] = [];
  if (typeof __dirname === 'string') {
    let d = __dirname;
    for (let i = 0; i < 5; i++) {
      dirs.push(d, join(d, 'dist'));
      d = dirname(d);
    }
  }
  dirs.push(join(process.cwd(), 'dist'));
  for (const d of dirs) {
    const p = join(d, name);
    if (existsSync(p)) return p;
  }
  for (const d of dirs) {
    const p = join(d, 'node_modules', packageDir, name);
    if (existsSync(p)) return p;
  }
  throw new Error(`cannot find ${name} beside the bundle or in node_modules/${packageDir}`);
}

export function initParser(): Promise<void> {
  if (!initPromise) {
    initPromise = (async () => {
      const runtime = locate('web-tree-sitter.wasm', 'web-tree-sitter');
      await Parser.init({ locateFile: () => runtime });
      const grammar = locate('tree-sitter-terraform.wasm', '@tree-sitter-grammars/tree-sitter-hcl');
      language = await Language.load(grammar);
    })();
  }
  return initPromise;
}

/** A new parser for the Terraform grammar. Requires initParser() to have completed. */
export function newParser(): Parser {
  if (!language) throw new Error('initParser() must complete before newParser()');
  const p = new Parser();
  p.setLanguage(language);
  return p;
}
