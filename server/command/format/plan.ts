// The human rendering of a plan (Terraform's jsonformat Plan.renderHuman): the symbols legend, one
// `# addr will be ...` section per resource change, the "Plan: N to add..." summary, "Changes to Outputs:",
// "No changes." variants, drift ("Objects have changed outside of Terraform") and "Planning failed.".
//
// Contract: `renderHumanPlan` returns exactly the bytes Terraform writes to stdout for the plan view (colour
// escapes through colorstring markup when `color`); it reads the Plan only. Diffs come from ./diff/diff.ts.

import { colorize } from '../../cli/state/meta';
import { wordWrap as wrapLine } from '../../diags/render';
import type { Value } from '../../lang/value';
import type { Action, Plan, PlanMode, ResourceInstanceChange } from '../../plans/plan';
import { schemaForChange } from '../../plans/plan';
import { instanceAddrString, type InstanceAddr } from '../../states/state';
import { compareBytes } from '../../lang/types';
import { diffActionSymbol, diffBlock, diffOutput, ensureValidAttributeName, type Diff } from './diff/diff';

export interface PlanRenderOptions {
  color: boolean;
  /** Terraform's plans.Errored quality. */
  errored?: boolean;
}

/** format.WordWrap: each line wrapped on its own. */
function wordWrap(s: string, width: number): string {
  return s
    .split('\n')
    .map((l) => wrapLine(l, width))
    .join('\n');
}

function actionDescription(a: Action): string {
  switch (a) {
    case 'Create':
      return '  [green]+[reset] create';
    case 'Delete':
      return '  [red]-[reset] destroy';
    case 'Update':
      return '  [yellow]~[reset] update in-place';
    case 'CreateThenDelete':
      return '[green]+[reset]/[red]-[reset] create replacement and then destroy';
    case 'DeleteThenCreate':
      return '[red]-[reset]/[green]+[reset] destroy and then create replacement';
    case 'Read':
      return ' [cyan]<=[reset] read (data resources)';
    default:
      return '';
  }
}

function indexJSON(addr: InstanceAddr): string {
  return typeof addr.key === 'number' ? String(addr.key) : JSON.stringify(addr.key);
}

function moduleAddr(addr: InstanceAddr): string {
  return addr.module;
}

function resourceChangeComment(c: ResourceInstanceChange, action: Action, drift: boolean): string {
  let addr = instanceAddrString(c.addr);
  if (c.deposedKey) addr = `${addr} (deposed object ${c.deposedKey})`;
  const prev = instanceAddrString(c.prevRunAddr);
  let out = '';
  let printedMoved = false;
  let printedImported = false;
  switch (action) {
    case 'Create':
      out += `[bold]  # ${addr}[reset] will be created`;
      break;
    case 'Read':
      out += `[bold]  # ${addr}[reset] will be read during apply`;
      if (c.actionReason === 'ReadBecauseConfigUnknown') out += '\n  # (config refers to values not yet known)';
      else if (c.actionReason === 'ReadBecauseDependencyPending') out += '\n  # (depends on a resource or a module with changes pending)';
      else if (c.actionReason === 'ReadBecauseCheckNested') out += '\n  # (config will be reloaded to verify a check block)';
      break;
    case 'Update':
      out += drift ? `[bold]  # ${addr}[reset] has changed` : `[bold]  # ${addr}[reset] will be updated in-place`;
      break;
    case 'CreateThenDelete':
    case 'DeleteThenCreate':
      if (c.actionReason === 'ReplaceBecauseTainted') out += `[bold]  # ${addr}[reset] is tainted, so must be [bold][red]replaced[reset]`;
      else if (c.actionReason === 'ReplaceByRequest') out += `[bold]  # ${addr}[reset] will be [bold][red]replaced[reset], as requested`;
      else if (c.actionReason === 'ReplaceByTriggers') out += `[bold]  # ${addr}[reset] will be [bold][red]replaced[reset] due to changes in replace_triggered_by`;
      else out += `[bold]  # ${addr}[reset] must be [bold][red]replaced[reset]`;
      break;
    case 'Delete':
      out += drift ? `[bold]  # ${addr}[reset] has been deleted` : `[bold]  # ${addr}[reset] will be [bold][red]destroyed[reset]`;
      switch (c.actionReason) {
        case 'DeleteBecauseNoResourceConfig':
          out += `\n  # (because ${c.addr.mode === 'data' ? 'data.' : ''}${c.addr.type}.${c.addr.name} is not in configuration)`;
          break;
        case 'DeleteBecauseNoMoveTarget':
          out += `\n  # (because ${prev} was moved to ${instanceAddrString(c.addr)}, which is not in configuration)`;
          break;
        case 'DeleteBecauseNoModule':
          out += `\n  # (because ${moduleAddr(c.addr)} is not in configuration)`;
          break;
        case 'DeleteBecauseWrongRepetition':
          if (c.addr.key === undefined) out += '\n  # (because resource uses count or for_each)';
          else if (typeof c.addr.key === 'number') out += '\n  # (because resource does not use count)';
          else out += '\n  # (because resource does not use for_each)';
          break;
        case 'DeleteBecauseCountIndex':
          out += `\n  # (because index [${indexJSON(c.addr)}] is out of range for count)`;
          break;
        case 'DeleteBecauseEachKey':
          out += `\n  # (because key [${indexJSON(c.addr)}] is not in for_each map)`;
          break;
        default:
          break;
      }
      if (c.deposedKey) out += '\n  # (left over from a partially-failed replacement of this instance)';
      break;
    case 'Forget':
      out += `[bold] # ${addr}[reset] will no longer be managed by Terraform, but [bold][red]will not be destroyed[reset]`;
      out += '\n # (destroy = false is set in the configuration)';
      break;
    case 'NoOp':
      if (prev !== instanceAddrString(c.addr)) {
        out += `[bold]  # ${prev}[reset] has moved to [bold]${addr}[reset]`;
        printedMoved = true;
        break;
      }
      if (c.importing) {
        out += `[bold]  # ${addr}[reset] will be imported`;
        printedImported = true;
        break;
      }
      out += `${addr} has an action the plan renderer doesn't support (this is a bug)`;
      break;
    default:
      out += `${addr} has an action the plan renderer doesn't support (this is a bug)`;
  }
  out += '\n';
  if (prev !== instanceAddrString(c.addr) && !printedMoved) out += `  # [reset](moved from ${prev})\n`;
  if (c.importing && !printedImported) out += `  # [reset](imported from "${c.importing.id}")\n`;
  if (c.importing && (action === 'CreateThenDelete' || action === 'DeleteThenCreate')) out += '  # [reset][yellow]Warning: this will destroy the imported resource[reset]\n';
  return out;
}

function changeDiff(plan: Plan, c: { addr: InstanceAddr; providerAddr: string; before: Value; after: Value; requiredReplace?: ResourceInstanceChange['requiredReplace'] }): Diff | undefined {
  const schema = schemaForChange(plan, c);
  if (!schema) return undefined;
  return diffBlock(c.before, c.after, schema.block, c.requiredReplace ?? []);
}

/** One resource change section (renderHumanDiff) without the leading blank line. */
export function renderResourceChange(plan: Plan, c: ResourceInstanceChange, color: boolean, drift = false): string {
  // A forgotten object is shown as it is, unchanged.
  const d = changeDiff(plan, c.action === 'Forget' ? { ...c, after: c.before } : c);
  const opts = { color, showUnchangedChildren: !!c.importing };
  const header = `${c.addr.mode === 'data' ? 'data' : 'resource'} "${c.addr.type}" "${c.addr.name}"`;
  const body = d ? d.render(0, opts) : '{}';
  return colorize(resourceChangeComment(c, c.action, drift), color) + `${colorize(diffActionSymbol(c.action), color)} ${header} ${body}`;
}

export function renderOutputChanges(plan: Plan, color: boolean): string {
  const outs = plan.outputs.filter((o) => o.module === '' || !o.module);
  const width = Math.max(0, ...outs.map((o) => ensureValidAttributeName(o.name).length));
  const rendered: string[] = [];
  for (const o of [...outs].sort((a, b) => compareBytes(a.name, b.name))) {
    const d = diffOutput(o.before, o.after, o.sensitive);
    if (d.action === 'NoOp') continue;
    rendered.push(`${colorize(diffActionSymbol(d.action), color)} ${ensureValidAttributeName(o.name).padEnd(width)} = ${d.render(0, { color })}`);
  }
  return rendered.join('\n');
}

/** Drift section; returns the text and whether anything was printed. */
function renderDrift(plan: Plan, color: boolean, mode: PlanMode): { text: string; any: boolean } {
  const drifted = plan.driftedResources.filter((d) => d.action !== 'NoOp');
  if (drifted.length === 0) return { text: '', any: false };
  let out = colorize('\n[bold][cyan]Note:[reset][bold] Objects have changed outside of Terraform\n', color) + '\n';
  out += wordWrap('Terraform detected the following changes made outside of Terraform since the last "terraform apply" which may have affected this plan:', 77) + '\n';
  for (const d of drifted) {
    const c: ResourceInstanceChange = { ...d, actionReason: 'None', requiredReplace: [], private: new Uint8Array() } as unknown as ResourceInstanceChange;
    out += '\n' + renderResourceChange(plan, c, color, true) + '\n';
  }
  if (mode === 'refresh-only') {
    out += '\n' + wordWrap('This is a refresh-only plan, so Terraform will not take any actions to undo these. If you were expecting these changes then you can apply this plan to record the updated values in the Terraform state without changing any remote objects.', 77) + '\n';
  } else {
    out += '\n' + wordWrap('Unless you have made equivalent changes to your configuration, or ignored the relevant attributes using ignore_changes, the following plan may include actions to undo or respond to these changes.', 77) + '\n';
  }
  return { text: out, any: true };
}

function hr(color: boolean): string {
  return colorize('[dark_gray]' + '─'.repeat(77), color) + '\n';
}

/** The plan as `terraform plan` prints it. */
export function renderHumanPlan(plan: Plan, opts: PlanRenderOptions): string {
  const color = opts.color;
  const mode = plan.uiMode;
  let out = '';
  const drift = renderDrift(plan, color, mode);
  out += drift.text;
  const haveRefreshChanges = drift.any;
  const counts = new Map<Action, number>();
  let importing = 0;
  const changes: ResourceInstanceChange[] = [];
  for (const c of plan.changes) {
    const moved = instanceAddrString(c.prevRunAddr) !== instanceAddrString(c.addr);
    if (c.action === 'NoOp' && !moved && !c.importing) continue;
    if (c.action === 'Delete' && c.addr.mode !== 'managed') continue;
    changes.push(c);
    if (c.importing) importing++;
    if (c.action !== 'NoOp') counts.set(c.action, (counts.get(c.action) ?? 0) + 1);
  }
  const outputs = renderOutputChanges(plan, color);
  if (changes.length === 0 && outputs.length === 0) {
    if (opts.errored) {
      if (haveRefreshChanges) out += hr(color) + '\n';
      out += colorize('\n[reset][bold][red]Planning failed.[reset][bold] Terraform encountered an error while generating this plan.[reset]\n\n', color);
      return out;
    }
    if (mode === 'refresh-only') {
      if (haveRefreshChanges) return out;
      out += colorize('\n[reset][bold][green]No changes.[reset][bold] Your infrastructure still matches the configuration.[reset]\n\n', color);
      out += wordWrap('Terraform has checked that the real remote objects still match the result of your most recent changes, and found no differences.', 77) + '\n';
      return out;
    }
    if (mode === 'destroy') {
      if (haveRefreshChanges) out += hr(color) + '\n';
      out += colorize('\n[reset][bold][green]No changes.[reset][bold] No objects need to be destroyed.[reset]\n\n', color);
      out += wordWrap('Either you have not created any objects yet or the existing objects were already deleted outside of Terraform.', 77) + '\n';
      return out;
    }
    if (haveRefreshChanges) out += hr(color) + '\n';
    out += colorize('\n[reset][bold][green]No changes.[reset][bold] Your infrastructure matches the configuration.[reset]\n\n', color);
    if (haveRefreshChanges) {
      out +=
        wordWrap(
          plan.applyable
            ? "Your configuration already matches the changes detected above, so applying this plan will only update the state to include the changes detected above and won't change any real infrastructure."
            : "Your configuration already matches the changes detected above. If you'd like to update the Terraform state to match, create and apply a refresh-only plan.",
          77,
        ) + '\n';
    } else {
      out += wordWrap('Terraform has compared your real infrastructure against your configuration and found no differences, so no changes are needed.', 77) + '\n';
    }
    return out;
  }
  if (haveRefreshChanges) out += hr(color);
  if (counts.size > 0) {
    out += wordWrap('\nTerraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:\n', 77);
    for (const a of ['Create', 'Update', 'Delete', 'DeleteThenCreate', 'CreateThenDelete', 'Read'] as Action[]) {
      if ((counts.get(a) ?? 0) > 0) out += colorize(actionDescription(a), color) + '\n';
    }
  }
  if (changes.length > 0) {
    out += opts.errored ? '\nTerraform planned the following actions, but then encountered a problem:\n' : '\nTerraform will perform the following actions:\n';
    for (const c of changes) out += '\n' + renderResourceChange(plan, c, color) + '\n';
    const n = (a: Action) => counts.get(a) ?? 0;
    const add = n('Create') + n('DeleteThenCreate') + n('CreateThenDelete');
    const destroy = n('Delete') + n('DeleteThenCreate') + n('CreateThenDelete');
    if (importing > 0) out += colorize(`\n[bold]Plan:[reset] ${importing} to import, ${add} to add, ${n('Update')} to change, ${destroy} to destroy.\n`, color);
    else out += colorize(`\n[bold]Plan:[reset] ${add} to add, ${n('Update')} to change, ${destroy} to destroy.\n`, color);
  }
  if (outputs.length > 0) {
    out += '\nChanges to Outputs:\n' + outputs + '\n';
    if (counts.size === 0) {
      out += wordWrap('\nYou can apply this plan to save these new output values to the Terraform state, without changing any real infrastructure.', 77) + '\n';
    }
  }
  return out;
}
