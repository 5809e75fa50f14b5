// The on-disk cache of provider schemas, so that neither the language server nor a command waits on
// GetProviderSchema of a large provider (the aws schema is tens of MB and takes 1.5–2 s to produce) more than once
// per provider binary.
//
//   key: the provider package's hash (the h1: dirhash that .terraform.lock.hcl records, server/plugin/discovery.ts);
//        a different binary has a different key, so entries never go stale.
//   entry: `<dir>/<sha256(key)>.pb`: one byte for the protocol version (5 or 6), then the GetProviderSchema response
//        as the provider sent it (protobuf bytes, re-serialised with the protocol's own message type), decoded
//        lazily on first use (convert.ts) and kept in memory afterwards. Written atomically (temporary file, then rename); unreadable or corrupt entries are
//        ignored (and replaced on the next put).
//   dir: FORESIGHT_SCHEMA_CACHE_DIR, else $XDG_CACHE_HOME/foresight/provider-schemas, else
//        ~/.cache/foresight/provider-schemas.
// Never throws: a cache that cannot be read or written only costs the RPC.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { GetProviderSchemaResponse } from '../providers/provider';
import { loadProtos } from './proto/load';
import { codecs, type Msg, type ProtoVersion } from './convert';

export type Env = Readonly<Record<string, string | undefined>>;

export function defaultSchemaCacheDir(env: Env = process.env): string {
  if (env.FORESIGHT_SCHEMA_CACHE_DIR) return env.FORESIGHT_SCHEMA_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'foresight', 'provider-schemas');
}

interface Codec {
  serialize(m: Msg): Buffer;
  deserialize(b: Buffer): Msg;
}

function codecFor(v: ProtoVersion): Codec {
  const p = loadProtos();
  const svc = (v === 5 ? p.tfplugin5.Provider : p.tfplugin6.Provider).service as unknown as Record<string, { responseSerialize(m: Msg): Buffer; responseDeserialize(b: Buffer): Msg }>;
  const def = svc[v === 5 ? 'GetSchema' : 'GetProviderSchema'];
  return { serialize: (m) => def.responseSerialize(m), deserialize: (b) => def.responseDeserialize(b) };
}

export class SchemaCache {
  private readonly memory = new Map<string, GetProviderSchemaResponse>();
  /** Counters for tests and measurements. */
  readonly stats = { memoryHits: 0, diskHits: 0, misses: 0, writes: 0 };

  constructor(readonly dir: string) {}

  private file(key: string): string {
    return join(this.dir, createHash('sha256').update(key).digest('hex') + '.pb');
  }

  /** Forgets the decoded schemas kept in memory (the disk entries stay), as a restarted process would. */
  dropMemory(): void {
    this.memory.clear();
  }

  /** The schemas for `key`, or undefined. */
  get(key: string): GetProviderSchemaResponse | undefined {
    const m = this.memory.get(key);
    if (m) {
      this.stats.memoryHits++;
      return m;
    }
    try {
      const bytes = readFileSync(this.file(key));
      const v = bytes[0] as ProtoVersion;
      if (v !== 5 && v !== 6) throw new Error('bad entry');
      const msg = codecFor(v).deserialize(bytes.subarray(1));
      const res = codecs(v).getProviderSchema.responseFromProto(msg, undefined as never, undefined);
      this.memory.set(key, res);
      this.stats.diskHits++;
      return res;
    } catch {
      this.stats.misses++;
      return undefined;
    }
  }

  /** Records the provider's GetProviderSchema answer (the proto message) and its decoded form. */
  put(key: string, v: ProtoVersion, msg: Msg, decoded: GetProviderSchemaResponse): void {
    this.memory.set(key, decoded);
    try {
      mkdirSync(this.dir, { recursive: true });
      const f = this.file(key);
      const tmp = `${f}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([Buffer.from([v]), codecFor(v).serialize(msg)]));
      renameSync(tmp, f);
      this.stats.writes++;
    } catch {
      // an unwritable cache only costs the RPC next time
    }
  }
}

const shared = new Map<string, SchemaCache>();

/** One cache object per directory in this process. */
export function schemaCacheAt(dir: string): SchemaCache {
  let c = shared.get(dir);
  if (!c) shared.set(dir, (c = new SchemaCache(dir)));
  return c;
}
