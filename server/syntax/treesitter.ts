// Loads web-tree-sitter and the Terraform grammar once per process.
//
// Contract: call `await initParser()` once before `newParser()`. Trees returned by a parser live on the
// WebAssembly heap and are not garbage-collected: whoever parses owns the tree and must call tree.delete()
// when it is no longer needed (see syntax/document.ts, which does this for edited documents).
//
// Loading costs a process about 35 ms, and V8's background compilation of the WebAssembly then holds the
// process's exit back by another 100-200 ms. Files without syntax errors are read without tree-sitter (the fast
// lane, config/fastbody.ts), so the command line loads it only when some file needs it: loadModuleTree and
// readHclBody (config/parsebody.ts) try the fast lane first.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';
import type { ParseState, Tree } from 'web-tree-sitter';
import type { Diagnostic } from '../diags/diagnostic';

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

/**
 * Parses `text`, giving up after `budgetMs` milliseconds of parsing when a budget is given (web-tree-sitter's
 * progressCallback cancels the parse when it returns true). Returns 'timeout' when abandoned: the parser is
 * reset and can be used again. Without a budget this is `parser.parse(text, oldTree)`.
 */
export function parseWithBudget(parser: Parser, text: string, opts: { budgetMs?: number; oldTree?: Tree | null } = {}): Tree | null | 'timeout' {
  const { budgetMs, oldTree } = opts;
  if (budgetMs === undefined) return parser.parse(text, oldTree ?? null);
  const deadline = performance.now() + budgetMs;
  let timedOut = false;
  const progressCallback = (): boolean => (timedOut ||= performance.now() > deadline);
  const tree = parser.parse(text, oldTree ?? null, { progressCallback: progressCallback as unknown as (s: ParseState) => void });
  if (timedOut) {
    tree?.delete();
    parser.reset();
    return 'timeout';
  }
  return tree;
}

/** The warning on a file whose tree-sitter parse was abandoned: only HCL's syntax errors are reported for it. */
export function tooLargeWarning(filename: string, text: string, budgetMs: number): Diagnostic {
  const bytes = Buffer.byteLength(text, 'utf8');
  const size = bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
  return {
    severity: 'warning',
    summary: 'File too large to analyse fully',
    detail: `${filename} (${size}) could not be parsed within the ${budgetMs} ms allowed, so only its syntax errors are reported; its blocks and arguments are not checked.`,
    subject: { filename, start: { line: 1, column: 1, byte: 0 }, end: { line: 1, column: 1, byte: 0 } },
    source: 'syntax',
  };
}

/** Thrown by newParser() before initParser() has completed (see loadModuleTree, which then loads it and retries). */
export class ParserNotReady extends Error {
  constructor() {
    super('initParser() must complete before newParser()');
  }
}

/** Whether initParser() has completed, so newParser() can be called. */
export function parserReady(): boolean {
  return language !== undefined;
}

/** A new parser for the Terraform grammar. Requires initParser() to have completed (else throws ParserNotReady). */
export function newParser(): Parser {
  if (!language) throw new ParserNotReady();
  const p = new Parser();
  p.setLanguage(language);
  return p;
}
