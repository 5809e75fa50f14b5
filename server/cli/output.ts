// `foresight output [-json] [-raw] [-no-color] [-state=path] [NAME]`: Terraform's output command (output.go,
// views/output.go, arguments/output.go): root module outputs of the current workspace's state, printed
// as the console prints values (human), as ctyjson (-json) or raw strings (-raw), with Terraform's
// diagnostics ("No outputs found" warning, "Output \"x\" not found", -raw restrictions) and exit statuses.

import { ctyMarshal, ctyMarshalType, outputValue } from '../command/jsonstate';
import { error, hasErrors, warning, type Diagnostic } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { convert } from '../lang/convert';
import { formatValue } from '../lang/format';
import * as T from '../lang/types';
import type { Value } from '../lang/value';
import type { OutputValue } from '../states/state';
import { helpText } from './help/index';
import type { CliIO } from './io';
import { backendConfigErrors, diagsErrorText, localBackend, parseFlags, wantsHelp } from './state/meta';

function noOutputsWarning(): Diagnostic {
  return warning(
    'No outputs found',
    'The state file either has no outputs defined, or all the defined outputs are empty. Please define an output in your configuration with the `output` keyword and run `terraform refresh` for it to become available. If you are using interpolation, please verify the interpolated value is not empty. You can use the `terraform console` command to assist.',
  );
}

function missingOutputError(name: string): Diagnostic {
  return error(
    `Output ${JSON.stringify(name)} not found`,
    'The output variable requested could not be found in the state file. If you recently added this to your configuration, be sure to run `terraform apply`, since the state won\'t be updated with new output variables until that command is run.',
  );
}

/** JSON.MarshalIndent with two spaces of already-compact JSON text (Go's json.Indent). */
export function goIndent(compact: string): string {
  let out = '';
  let depth = 0;
  let inStr = false;
  const nl = () => '\n' + '  '.repeat(depth);
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i];
    if (inStr) {
      out += c;
      if (c === '\\') out += compact[++i];
      else if (c === '"') inStr = false;
      continue;
    }
    switch (c) {
      case '"':
        inStr = true;
        out += c;
        break;
      case '{':
      case '[': {
        const close = c === '{' ? '}' : ']';
        if (compact[i + 1] === close) {
          out += c + close;
          i++;
        } else {
          depth++;
          out += c + nl();
        }
        break;
      }
      case '}':
      case ']':
        depth--;
        out += nl() + c;
        break;
      case ',':
        out += ',' + nl();
        break;
      case ':':
        out += ': ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

export async function runOutput(rawArgs: string[], io: CliIO): Promise<number> {
  if (wantsHelp(rawArgs)) {
    io.stdout(helpText('output'));
    return 0;
  }
  // arguments.ParseView: -no-color anywhere.
  const args = rawArgs.filter((a) => a !== '-no-color');
  const color = args.length === rawArgs.length;
  const diags: Diagnostic[] = [];
  const f = parseFlags(args, { json: 'bool', raw: 'bool', state: 'string' });
  if (f.error) diags.push(error('Failed to parse command-line flags', f.error));
  const pos = f.error ? [] : f.args;
  if (pos.length > 1)
    diags.push(error('Unexpected argument', 'The output command expects exactly one argument with the name of an output variable or no arguments to show all outputs.'));
  let json = f.values.get('json') === true;
  let raw = f.values.get('raw') === true;
  if (json && raw) {
    diags.push(error('Invalid output format', 'The -raw and -json options are mutually-exclusive.'));
    json = false;
    raw = false;
  }
  const name = pos[0] ?? '';
  if (raw && name === '') diags.push(error('Output name required', 'You must give the name of a single output value when using the -raw option.'));
  if (hasErrors(diags)) {
    io.stderr(renderDiagnosticsView(diags, { color }));
    io.stderr('\nFor more help on using this command, run:\n  terraform output -help\n');
    return 1;
  }
  const show = (ds: readonly Diagnostic[]) => {
    for (const d of ds) {
      const text = renderDiagnosticsView([d], { color });
      if (d.severity === 'error') io.stderr(text);
      else io.stdout(text);
    }
  };

  const be = await backendConfigErrors(io);
  if (be) {
    io.stderr(renderDiagnosticsView(be.diags, { color, ...be.src }));
    return 1;
  }
  const b = localBackend(io, { statePath: (f.values.get('state') as string) ?? '' });
  const ws = b.currentWorkspace();
  let outputs = new Map<string, OutputValue>();
  try {
    const mgr = await b.stateMgr(ws);
    const rd = await mgr.refresh();
    if (hasErrors(rd)) {
      show([error(`Failed to load state: ${diagsErrorText(rd)}`)]);
      return 1;
    }
    const st = mgr.read();
    if (st) outputs = st.outputs;
  } catch (e) {
    show([error(`Failed to load state: ${(e as Error).message}`)]);
    return 1;
  }
  const values = new Map<string, { v: Value; sensitive: boolean }>();
  for (const [k, o] of outputs) values.set(k, { v: outputValue(o), sensitive: o.sensitive });

  if (json) {
    if (name !== '') {
      const o = values.get(name);
      if (!o) {
        show([missingOutputError(name)]);
        return 1;
      }
      io.stdout(ctyMarshal(o.v) + '\n');
      return 0;
    }
    const keys = [...values.keys()].sort(T.compareBytes);
    const compact =
      '{' +
      keys
        .map((k) => {
          const o = values.get(k)!;
          return `${JSON.stringify(k)}:{"sensitive":${o.sensitive},"type":${ctyMarshalType(o.v.type)},"value":${ctyMarshal(o.v)}}`;
        })
        .join(',') +
      '}';
    io.stdout(goIndent(compact) + '\n');
    return 0;
  }

  if (values.size === 0) {
    show([noOutputsWarning()]);
    return 0;
  }
  if (raw) {
    const o = values.get(name);
    if (!o) {
      show([missingOutputError(name)]);
      return 1;
    }
    const k = o.v.type.kind;
    if (!(k === 'string' || k === 'number' || k === 'bool' || (k === 'dynamic' && o.v.isNull))) {
      show([
        error(
          'Unsupported value for raw output',
          `The -raw option only supports strings, numbers, and boolean values, but output value ${JSON.stringify(name)} is ${T.friendlyName(o.v.type)}.\n\nUse the -json option for machine-readable representations of output values that have complex types.`,
        ),
      ]);
      return 1;
    }
    if (o.v.isNull) {
      show([error('Unsupported value for raw output', `The value for output value ${JSON.stringify(name)} is null, so -raw mode cannot print it.`)]);
      return 1;
    }
    const s = convert(o.v, T.String);
    io.stdout('value' in s && s.value ? s.value.str : '');
    return 0;
  }
  if (name !== '') {
    const o = values.get(name);
    if (!o) {
      show([missingOutputError(name)]);
      return 1;
    }
    io.stdout(formatValue(o.v, 0) + '\n');
    return 0;
  }
  let buf = '';
  for (const k of [...values.keys()].sort(T.compareBytes)) {
    const o = values.get(k)!;
    if (o.sensitive) buf += `${k} = <sensitive>\n`;
    else buf += `${k} = ${formatValue(o.v, 0)}\n`;
  }
  io.stdout(buf.trim() + '\n');
  return 0;
}
