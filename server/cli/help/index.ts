// Terraform 1.11.4's -help texts, one file per verb or subcommand (`state-list.txt` is `state list`), recorded
// from `terraform <verb> -help` (stdout, including its final newline). hashicorp/cli prints the same text to
// stdout for `-help` (exit 0) and when a command answers RunResultHelp (exit 1).

import h_apply from './apply.txt';
import h_console from './console.txt';
import h_destroy from './destroy.txt';
import h_fmt from './fmt.txt';
import h_force_unlock from './force-unlock.txt';
import h_get from './get.txt';
import h_graph from './graph.txt';
import h_import from './import.txt';
import h_init from './init.txt';
import h_login from './login.txt';
import h_logout from './logout.txt';
import h_metadata from './metadata.txt';
import h_metadata_functions from './metadata-functions.txt';
import h_modules from './modules.txt';
import h_output from './output.txt';
import h_plan from './plan.txt';
import h_providers from './providers.txt';
import h_providers_lock from './providers-lock.txt';
import h_providers_mirror from './providers-mirror.txt';
import h_providers_schema from './providers-schema.txt';
import h_refresh from './refresh.txt';
import h_show from './show.txt';
import h_state from './state.txt';
import h_state_list from './state-list.txt';
import h_state_mv from './state-mv.txt';
import h_state_pull from './state-pull.txt';
import h_state_push from './state-push.txt';
import h_state_replace_provider from './state-replace-provider.txt';
import h_state_rm from './state-rm.txt';
import h_state_show from './state-show.txt';
import h_taint from './taint.txt';
import h_test from './test.txt';
import h_untaint from './untaint.txt';
import h_validate from './validate.txt';
import h_version from './version.txt';
import h_workspace from './workspace.txt';
import h_workspace_delete from './workspace-delete.txt';
import h_workspace_list from './workspace-list.txt';
import h_workspace_new from './workspace-new.txt';
import h_workspace_select from './workspace-select.txt';
import h_workspace_show from './workspace-show.txt';

/** Help text by command path (`"state list"`), or undefined. */
export const HELP: Readonly<Record<string, string>> = {
  'apply': h_apply,
  'console': h_console,
  'destroy': h_destroy,
  'fmt': h_fmt,
  'force-unlock': h_force_unlock,
  'get': h_get,
  'graph': h_graph,
  'import': h_import,
  'init': h_init,
  'login': h_login,
  'logout': h_logout,
  'metadata': h_metadata,
  'metadata functions': h_metadata_functions,
  'modules': h_modules,
  'output': h_output,
  'plan': h_plan,
  'providers': h_providers,
  'providers lock': h_providers_lock,
  'providers mirror': h_providers_mirror,
  'providers schema': h_providers_schema,
  'refresh': h_refresh,
  'show': h_show,
  'state': h_state,
  'state list': h_state_list,
  'state mv': h_state_mv,
  'state pull': h_state_pull,
  'state push': h_state_push,
  'state replace-provider': h_state_replace_provider,
  'state rm': h_state_rm,
  'state show': h_state_show,
  'taint': h_taint,
  'test': h_test,
  'untaint': h_untaint,
  'validate': h_validate,
  'version': h_version,
  'workspace': h_workspace,
  'workspace delete': h_workspace_delete,
  'workspace list': h_workspace_list,
  'workspace new': h_workspace_new,
  'workspace select': h_workspace_select,
  'workspace show': h_workspace_show,
};

/** The help text of a command path; throws for unknown paths (a programming error). */
export function helpText(path: string): string {
  const h = HELP[path];
  if (h === undefined) throw new Error(`no help text for ${path}`);
  return h;
}
