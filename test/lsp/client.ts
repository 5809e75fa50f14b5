// A test client for the language server: spawns `node dist/server.js --stdio` (built by scripts/test.mjs)
// and speaks JSON-RPC over its standard streams. Records every publishDiagnostics and log message, and
// offers waitFor() to poll for a condition (never a fixed sleep). FORESIGHT_SERVER_NODE_ARGS (space-separated)
// are passed to that node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" to profile the server in a benchmark.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { Diagnostic, InitializeResult } from 'vscode-languageserver-protocol';
import { SERVER_ENV, SERVER_EXEC_ARGV } from '../../server/lsp/launch';

export interface Published {
  uri: string;
  version?: number;
  diagnostics: Diagnostic[];
}

export class TestClient {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly conn: MessageConnection;
  /** Every publishDiagnostics in arrival order. */
  readonly published: Published[] = [];
  /** When each of `published` arrived (performance.now() of this process). */
  readonly publishedAt: number[] = [];
  readonly logs: string[] = [];
  readonly statuses: unknown[] = [];
  refreshes = 0;
  private listeners: (() => void)[] = [];
  private exited = false;

  constructor() {
    // The Node options and environment the VS Code client starts the server with, then any options the environment
    // adds.
    const nodeArgs = [...SERVER_EXEC_ARGV, ...(process.env.FORESIGHT_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    this.proc = spawn(process.execPath, [...nodeArgs, join(process.cwd(), 'dist', 'server.js'), '--stdio'], {
      stdio: 'pipe',
      env: { ...process.env, ...SERVER_ENV },
    });
    this.proc.on('exit', () => {
      this.exited = true;
      this.notify();
    });
    this.proc.stderr.on('data', (b: Buffer) => this.logs.push(`stderr: ${b}`));
    // A server that died under the test must fail that test, not crash the test process with EPIPE.
    this.proc.stdin.on('error', (e) => this.logs.push(`stdin: ${e.message}`));
    this.conn = createMessageConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    this.conn.onNotification('textDocument/publishDiagnostics', (p: Published) => {
      this.published.push(p);
      this.publishedAt.push(performance.now());
      this.notify();
    });
    this.conn.onNotification('window/logMessage', (p: { message: string }) => {
      this.logs.push(p.message);
      this.notify();
    });
    this.conn.onNotification('foresight/analysisStatus', (p: unknown) => {
      this.statuses.push(p);
      this.notify();
    });
    this.conn.onRequest('workspace/diagnostic/refresh', () => {
      this.refreshes++;
      this.notify();
      return null;
    });
    this.conn.listen();
  }

  get alive(): boolean {
    return !this.exited;
  }

  async initialize(capabilities: object = {}, initializationOptions: object = { debounceMs: 10 }): Promise<InitializeResult> {
    const r = await this.conn.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities,
      initializationOptions,
    });
    await this.conn.sendNotification('initialized', {});
    return r;
  }

  open(uri: string, text: string, version = 1): Promise<void> {
    return this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'terraform', version, text } });
  }

  change(uri: string, version: number, contentChanges: object[]): Promise<void> {
    return this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges });
  }

  close(uri: string): Promise<void> {
    return this.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  request<R>(method: string, params: object): Promise<R> {
    return this.conn.sendRequest<R>(method, params);
  }

  /** When the first diagnostics for `uri` arrived (performance.now()), or undefined if none did yet. */
  firstArrival(uri: string): number | undefined {
    const i = this.published.findIndex((p) => p.uri === uri);
    return i < 0 ? undefined : this.publishedAt[i];
  }

  /** The latest diagnostics published for `uri`, or undefined if none were published yet. */
  latest(uri: string): Published | undefined {
    for (let i = this.published.length - 1; i >= 0; i--) if (this.published[i].uri === uri) return this.published[i];
    return undefined;
  }

  /** Resolves with the first truthy value of `check()`, re-checked on every message; rejects after `ms`. */
  waitFor<T>(what: string, check: () => T | undefined | false, ms = 10_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const probe = (): boolean => {
        const v = check();
        if (v) {
          clearTimeout(timer);
          this.listeners = this.listeners.filter((l) => l !== probe);
          resolve(v);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== probe);
        reject(new Error(`timed out waiting for ${what}; logs:\n${this.logs.join('\n')}`));
      }, ms);
      if (!probe()) this.listeners.push(probe);
    });
  }

  async stop(): Promise<void> {
    if (this.alive) {
      await this.conn.sendRequest('shutdown').catch(() => undefined);
      await this.conn.sendNotification('exit').catch(() => undefined);
      await this.waitFor('server exit', () => !this.alive, 5_000).catch(() => this.proc.kill());
    }
    this.conn.dispose();
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}
