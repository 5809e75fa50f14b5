// The http state backend (Terraform 1.11.4's internal/backend/remote-state/http): configuration (config.ts), the wire
// protocol with retries, auth and TLS (client.ts) and the remote state manager with Foresight's apply journal
// (state.ts). This file is the backend itself and the entry point the backend registry calls.
//
// Terraform's http backend has only the default workspace: listing workspaces, deleting one, or opening any other
// workspace fails with "workspaces not supported" (backend.ErrWorkspacesNotSupported); the commands print that text
// (`workspace new` prefixes "Failed to get configured named states: "). Here those calls throw
// WorkspacesNotSupportedError (the Workspaces interface has no error channel for listing) or, for deleteWorkspace,
// return it as a diagnostic.

import { isAbsolute, join } from 'node:path';
import { error, type Diagnostic } from '../../diags/diagnostic';
import type { Workspaces } from '../../states/statemgr';
import { HttpClient, type HttpClientOptions } from './client';
import { parseHttpConfig, type HttpConfig } from './config';
import { HttpStateManager } from './state';

export { HTTP_BACKEND_ATTRIBUTES, parseHttpConfig, type HttpConfig } from './config';
export { HttpClient, HttpLockError } from './client';
export { HttpStateManager } from './state';

/** backend.ErrWorkspacesNotSupported. */
export class WorkspacesNotSupportedError extends Error {
  constructor() {
    super('workspaces not supported');
  }
}

export interface HttpBackendOptions extends HttpClientOptions {
  /** The working directory; with it, applies are journalled under the data directory (TF_DATA_DIR or .terraform). */
  cwd?: string;
  /** Persist interval during apply in ms; default from TF_STATE_PERSIST_INTERVAL (seconds, > 20) else 20 s. */
  persistIntervalMs?: number;
}

export class HttpBackend implements Workspaces {
  private client: HttpClient | undefined;

  constructor(
    readonly config: HttpConfig,
    private readonly opts: HttpBackendOptions & { env: Readonly<Record<string, string | undefined>> },
  ) {}

  async workspaces(): Promise<string[]> {
    throw new WorkspacesNotSupportedError();
  }

  /**
   * A new state manager for the default workspace on the backend's one client, as Terraform's StateMgr returns a
   * new remote.State over `b.client`: snapshots are per manager, the lock (ID and lock info body) is the client's.
   */
  async stateMgr(workspace: string): Promise<HttpStateManager> {
    if (workspace !== 'default') throw new WorkspacesNotSupportedError();
    const env = this.opts.env;
    let dataDir: string | undefined;
    if (this.opts.cwd) {
      const d = env.TF_DATA_DIR || '.terraform';
      dataDir = isAbsolute(d) ? d : join(this.opts.cwd, d);
    }
    let persistIntervalMs = this.opts.persistIntervalMs;
    if (persistIntervalMs === undefined) {
      const v = env.TF_STATE_PERSIST_INTERVAL;
      const n = v !== undefined && /^[-+]?\d+$/.test(v) ? parseInt(v, 10) : NaN;
      persistIntervalMs = (n > 20 ? n : 20) * 1000;
    }
    this.client ??= new HttpClient(this.config, { sleep: this.opts.sleep, env });
    return new HttpStateManager(this.client, { dataDir, persistIntervalMs });
  }

  async deleteWorkspace(_workspace: string, _force: boolean): Promise<Diagnostic[]> {
    return [error('workspaces not supported')];
  }
}

/**
 * Configures the http backend from the backend block's attributes (plain JS values; null/absent = unset) and the
 * environment (TF_HTTP_*). On a configuration error, `backend` is absent and the diagnostic is Terraform's.
 */
export function configureHttpBackend(
  attrs: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  opts: HttpBackendOptions = {},
): { backend?: HttpBackend; diagnostics: Diagnostic[] } {
  const r = parseHttpConfig(attrs, env);
  if (!r.config) return { diagnostics: [error(r.error!)] };
  return { backend: new HttpBackend(r.config, { ...opts, env }), diagnostics: [] };
}
