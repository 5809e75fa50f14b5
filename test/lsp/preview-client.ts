// Test helpers for the preview and runs tests: a temporary workspace and a TestClient that records previews
// and asks for code lenses, inlay hints and hovers in a compact, comparable form.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeLens, Hover, InlayHint } from 'vscode-languageserver-protocol';
import { TestClient } from './client';
import { resolveChanges, type PreviewChangedNotification, type PreviewResult } from '../../server/lsp/protocol';

export function workspace(files: Record<string, string>): { dir: string; uri: (n: string) => string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-preview-'));
  for (const [n, t] of Object.entries(files)) writeFileSync(join(dir, n), t);
  return { dir, uri: (n) => pathToFileURL(join(dir, n)).href, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A TestClient that also records previews: each notification as sent (`notifications`) and with its changes
 * resolved (`previews`; a notification's changes may be edits of the previous one's list of the directory, applied
 * here as a client does). A preview whose changes cannot be resolved throws when its changes are read.
 */
export class PreviewClient extends TestClient {
  readonly previews: PreviewResult[] = [];
  readonly notifications: PreviewChangedNotification.Params[] = [];
  constructor() {
    super();
    this.conn.onNotification('foresight/previewChanged', (n: PreviewChangedNotification.Params) => {
      this.notifications.push(n);
      let last: PreviewResult | undefined;
      for (const p of this.previews) if (p.directory === n.directory) last = p;
      let base: PreviewResult['changes'] | undefined;
      try {
        base = last?.changes;
      } catch {
        base = undefined; // (that one could not be resolved either)
      }
      const changes = resolveChanges(n, last && base && { version: last.version, changes: base });
      const p = { ...n } as PreviewResult & { changesDelta?: unknown };
      delete p.changesDelta;
      if (changes) p.changes = changes;
      else
        Object.defineProperty(p, 'changes', {
          get: () => {
            throw new Error(`preview ${n.version} of ${n.directory}: its changes are edits of version ${n.changesDelta?.base}, which this client does not have`);
          },
        });
      this.previews.push(p);
      (this as unknown as { notify(): void }).notify();
    });
  }
  /** Waits for a preview of `dir` newer than `after` (a version). */
  nextPreview(dir: string, after = 0): Promise<PreviewResult> {
    return this.waitFor(`a preview of ${dir} after version ${after}`, () => this.previews.find((p) => p.directory === dir && p.version > after), 20_000);
  }
  async lenses(uri: string): Promise<string[]> {
    const ls = await this.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    return ls.map((l) => `${l.range.start.line}: ${l.command?.title}`);
  }
  async hints(uri: string): Promise<string[]> {
    const hs = await this.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 1000, character: 0 } } });
    return hs.map((h) => `${h.position.line}:${h.position.character} ${String(h.label)}`);
  }
  async hover(uri: string, line: number, character: number): Promise<string | undefined> {
    const h = await this.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line, character } });
    return h ? (h.contents as { value: string }).value : undefined;
  }
}

