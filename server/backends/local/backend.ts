// LocalBackend: where the local backend keeps each workspace's state, and which workspace is selected
// (Terraform's internal/backend/local). Siblings: see flock.ts.
//
// Layout (relative to the working directory, as Terraform 1.11.4 lays it out):
//   terraform.tfstate                        state of "default" (or the backend's `path` / -state)
//   terraform.tfstate.d/<name>/terraform.tfstate   state of workspace <name> (`workspace_dir` overrides the folder)
//   <out>.backup                             backup of the previous state (-backup=PATH, -backup=- disables)
//   .terraform/environment                   the selected workspace name, no newline (TF_DATA_DIR moves .terraform)
// TF_WORKSPACE overrides the selected workspace. A workspace exists when its folder exists; "default" always does.
// -state/-state-out/-backup apply to every workspace, as in Terraform.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { error, type Diagnostic } from '../../diags/diagnostic';
import type { Workspaces } from '../../states/statemgr';
import { writeFileAtomic } from './atomic';
import { FilesystemStateManager } from './filesystem';
import { lockingMode } from './flock';

/**
 * A warning to show once per command when Terraform-compatible locking is unavailable (the native addon was not
 * built), else nothing.
 */
export function lockingDiagnostics(): Diagnostic[] {
  if (lockingMode() !== 'none') return [];
  return [
    {
      severity: 'warning',
      summary: 'State locking does not exclude Terraform',
      detail:
        'The native fcntl lock addon (native/fcntl) is not built, so Foresight locks the state only against other Foresight processes. Run `node native/build.mjs` (needs a C compiler) to lock the state the way Terraform does.',
    },
  ];
}

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_STATE_FILENAME = 'terraform.tfstate';
export const DEFAULT_WORKSPACE_DIR = 'terraform.tfstate.d';

export interface LocalBackendOptions {
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** The backend block's `path`, else terraform.tfstate. */
  configPath?: string;
  /** The backend block's `workspace_dir`, else terraform.tfstate.d. */
  workspaceDir?: string;
  /** Command-line overrides. */
  statePath?: string;
  stateOutPath?: string;
  backupPath?: string;
  checkpointIntervalMs?: number;
}

export interface StatePaths {
  stateIn: string;
  stateOut: string;
  /** '' when backups are disabled. */
  backup: string;
}

export class LocalBackend implements Workspaces {
  constructor(private readonly opts: LocalBackendOptions) {}

  private abs(p: string): string {
    return isAbsolute(p) ? p : join(this.opts.cwd, p);
  }

  private get workspaceDir(): string {
    return this.opts.workspaceDir ?? DEFAULT_WORKSPACE_DIR;
  }

  private get dataDir(): string {
    return this.opts.env?.TF_DATA_DIR || '.terraform';
  }

  /** The selected workspace: TF_WORKSPACE, else `.terraform/environment`, else "default". */
  currentWorkspace(): string {
    const env = this.opts.env?.TF_WORKSPACE;
    if (env) return env;
    try {
      const name = readFileSync(this.abs(join(this.dataDir, 'environment')), 'utf8').trim();
      if (name) return name;
    } catch {
      // no selection recorded
    }
    return DEFAULT_WORKSPACE;
  }

  /** Records the selected workspace in `.terraform/environment` (atomically, creating the folder). */
  selectWorkspace(name: string): void {
    mkdirSync(this.abs(this.dataDir), { recursive: true });
    writeFileAtomic(this.abs(join(this.dataDir, 'environment')), name, 0o644);
  }

  /** Terraform's StatePaths. */
  statePaths(workspace: string): StatePaths {
    const isDefault = workspace === DEFAULT_WORKSPACE || workspace === '';
    let stateIn = this.opts.statePath ?? '';
    if (stateIn === '') stateIn = isDefault ? this.opts.configPath ?? DEFAULT_STATE_FILENAME : join(this.workspaceDir, workspace, DEFAULT_STATE_FILENAME);
    const stateOut = this.opts.stateOutPath || stateIn;
    const b = this.opts.backupPath ?? '';
    const backup = b === '-' ? '' : b === '' ? `${stateOut}.backup` : b;
    return { stateIn, stateOut, backup };
  }

  async workspaces(): Promise<string[]> {
    const names: string[] = [];
    try {
      for (const e of readdirSync(this.abs(this.workspaceDir))) {
        try {
          if (statSync(this.abs(join(this.workspaceDir, e))).isDirectory() && e !== DEFAULT_WORKSPACE) names.push(e);
        } catch {
          // vanished meanwhile
        }
      }
    } catch {
      // no workspace folder
    }
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return [DEFAULT_WORKSPACE, ...names];
  }

  /** The state manager of a workspace; creates the workspace's folder when it does not exist yet. */
  async stateMgr(workspace: string): Promise<FilesystemStateManager> {
    if (workspace !== DEFAULT_WORKSPACE && workspace !== '') {
      const dir = this.abs(join(this.workspaceDir, workspace));
      if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o755 });
    }
    const p = this.statePaths(workspace);
    return new FilesystemStateManager({
      cwd: this.opts.cwd,
      path: p.stateOut,
      readPath: p.stateIn,
      backupPath: p.backup,
      checkpointIntervalMs: this.opts.checkpointIntervalMs,
    });
  }

  async deleteWorkspace(workspace: string, _force: boolean): Promise<Diagnostic[]> {
    if (workspace === DEFAULT_WORKSPACE || workspace === '') return [error('Failed to delete workspace', 'cannot delete default state')];
    rmSync(this.abs(join(this.workspaceDir, workspace)), { recursive: true, force: true });
    return [];
  }
}
