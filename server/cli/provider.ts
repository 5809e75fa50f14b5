// `foresight provider serve NAME` and `foresight provider wrapper NAME DIR`: Foresight's providers as plugins
// for real Terraform (server/plugin/serve.ts). NAME is a built-in provider (by type name or source address)
// or the path of a JavaScript module written with the provider SDK. Usage errors print the help text to
// stderr with exit status 1, like Terraform's verbs.

import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { CliIO } from './io';
import type { Provider } from '../providers/provider';
import { BUILTIN_PROVIDERS } from '../providers/builtin/index';
import { serveProvider } from '../plugin/serve';
import { fileSink, recordingProvider } from '../plugin/recording';
import { misbehavingProvider, MISBEHAVIOURS, tamperResponse, type Misbehaviour } from '../plugin/misbehaving';
import helpProvider from './help/provider.txt';
import helpServe from './help/provider-serve.txt';
import helpWrapper from './help/provider-wrapper.txt';

export interface ResolvedProvider {
  /** The provider's type name (the last part of its source address): the plugin binary's suffix. */
  typeName: string;
  factory: () => Provider | Promise<Provider>;
}

function isProvider(x: unknown): x is Provider {
  return !!x && typeof x === 'object' && typeof (x as Provider).getProviderSchema === 'function';
}

/** A built-in provider by name or address, or an SDK module by path; an error message when neither. */
export function resolveProvider(name: string, cwd: string): ResolvedProvider | string {
  const bp = BUILTIN_PROVIDERS.find((p) => p.name === name || p.address === name || p.address.endsWith('/' + name) && name.includes('/'));
  if (bp) return { typeName: bp.name, factory: () => bp.factory({ workingDir: cwd }) };
  if (name.includes('/') || name.endsWith('.js') || name.endsWith('.cjs')) {
    const path = resolve(cwd, name);
    if (!existsSync(path)) return `No provider module at ${path}.`;
    const base = path.replace(/^.*\//, '').replace(/\.c?js$/, '');
    const typeName = base.replace(/^terraform-provider-/, '');
    return {
      typeName,
      factory: async () => {
        const mod = createRequire(join(cwd, 'noop.js'))(path) as Record<string, unknown>;
        for (const x of [mod.provider, mod.default, mod]) {
          if (isProvider(x)) return x;
          if (typeof x === 'function') {
            const p = await (x as () => unknown)();
            if (isProvider(p)) return p;
          }
        }
        throw new Error(`${path} exports no provider (expected "provider" or a default export: a Provider or a function returning one)`);
      },
    };
  }
  return `Foresight has no built-in provider named "${name}". Built-in providers: ${BUILTIN_PROVIDERS.map((p) => p.name).join(', ')}.`;
}

interface Flags {
  protocol?: 5 | 6;
  record?: string;
  misbehave?: Misbehaviour;
  positional: string[];
}

function parseFlags(args: string[]): Flags | string {
  const f: Flags = { positional: [] };
  for (const a of args) {
    const m = /^--?([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) {
      f.positional.push(a);
      continue;
    }
    const [, k, v] = m;
    if (k === 'protocol' && (v === '5' || v === '6')) f.protocol = Number(v) as 5 | 6;
    else if (k === 'record' && v) f.record = v;
    else if (k === 'misbehave' && v && (MISBEHAVIOURS as readonly string[]).includes(v)) f.misbehave = v as Misbehaviour;
    else return `flag provided but not defined or invalid: ${a}`;
  }
  return f;
}

export async function runProviderCommand(args: string[], io: CliIO): Promise<number> {
  const sub = args[0];
  if (sub === undefined || sub === '-help' || sub === '-h' || sub === '--help') {
    (sub ? io.stdout : io.stderr)(helpProvider);
    return sub ? 0 : 1;
  }
  const rest = args.slice(1);
  if (rest.some((a) => a === '-help' || a === '-h' || a === '--help')) {
    if (sub === 'serve') return io.stdout(helpServe), 0;
    if (sub === 'wrapper') return io.stdout(helpWrapper), 0;
  }
  if (sub !== 'serve' && sub !== 'wrapper') {
    io.stderr(helpProvider);
    return 1;
  }
  const help = sub === 'serve' ? helpServe : helpWrapper;
  const flags = parseFlags(rest);
  const wantArgs = sub === 'serve' ? 1 : 2;
  if (typeof flags === 'string' || flags.positional.length !== wantArgs) {
    if (typeof flags === 'string') io.stderr(flags + '\n');
    io.stderr(help);
    return 1;
  }
  const resolved = resolveProvider(flags.positional[0], io.cwd);
  if (typeof resolved === 'string') {
    io.stderr(`Error: ${resolved}\n`);
    return 1;
  }
  if (sub === 'wrapper') {
    const file = writeWrapper(flags.positional[0], resolve(io.cwd, flags.positional[1]), resolved.typeName, { record: flags.record && resolve(io.cwd, flags.record), protocol: flags.protocol, misbehave: flags.misbehave });
    io.stdout(`${file}\n`);
    return 0;
  }
  const env = io.env as NodeJS.ProcessEnv;
  const record = flags.record ?? env.FORESIGHT_PROVIDER_RECORD;
  return serveProvider(resolved.factory, {
    env,
    versions: flags.protocol ? [flags.protocol] : [6, 5],
    tamper: flags.misbehave ? tamperResponse(flags.misbehave) : undefined,
    wrap: (p) => {
      let q = flags.misbehave ? misbehavingProvider(p, flags.misbehave) : p;
      if (record) q = recordingProvider(q, fileSink(resolve(io.cwd, record)));
      return q;
    },
  });
}

/**
 * Writes DIR/terraform-provider-TYPE: a shell script that execs this Node with the CLI bundle and
 * `provider serve NAME` (absolute paths, so it works from any working directory). Returns the file's path.
 */
export function writeWrapper(name: string, dir: string, typeName: string, opts: { record?: string; protocol?: 5 | 6; misbehave?: Misbehaviour; cliPath?: string; nodePath?: string } = {}): string {
  mkdirSync(dir, { recursive: true });
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cli = opts.cliPath ?? resolve(__filename);
  const extra = [opts.protocol ? `-protocol=${opts.protocol}` : '', opts.record ? `-record=${opts.record}` : '', opts.misbehave ? `-misbehave=${opts.misbehave}` : ''].filter(Boolean);
  const file = join(dir, `terraform-provider-${typeName}`);
  writeFileSync(file, `#!/bin/sh\n# Serves Foresight's "${name}" provider to Terraform (foresight provider serve).\nexec ${q(opts.nodePath ?? process.execPath)} ${q(cli)} provider serve ${[...extra.map(q), q(name)].join(' ')}\n`);
  chmodSync(file, 0o755);
  return file;
}
