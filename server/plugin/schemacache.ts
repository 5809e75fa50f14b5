// The on-disk cache of provider schemas, so that neither the language server nor a command waits on
// GetProviderSchema of a large provider (the aws schema is tens of MB and takes 1.5–2 s to produce) more than once
// per provider binary.
//
//   key: the provider package's hash (the h1: dirhash that .terraform.lock.hcl records, server/plugin/discovery.ts);
//        a different binary has a different key, so entries never go stale.
//   entry: `<dir>/<sha256(key)>.pb`: one byte for the protocol version (5 or 6), then the GetProviderSchema response
//        as the provider sent it (protobuf bytes, re-serialised with the protocol's own message type). Written
//        atomically (temporary file, then rename); unreadable or corrupt entries are ignored (and replaced on the
//        next put).
//   reading: lazily per type. The top level of the message is walked with a small protobuf wire reader; the
//        small fields (provider, provider_meta, diagnostics, capabilities) are decoded at once, and each entry of
//        the resource_schemas / data_source_schemas / ephemeral_resource_schemas maps becomes an enumerable
//        getter that decodes that one Schema (as the `provider` field of a one-field response, through the same
//        codec and convert.ts) on first access and then replaces itself with the value. Opening the aws schema
//        (1,526 resources, 608 data sources, 6.6 MB) decodes only what the configuration uses; anything that
//        enumerates the values (spread, Object.values) decodes them all, as an eager read would.
//   dir: FORESIGHT_SCHEMA_CACHE_DIR, else $XDG_CACHE_HOME/foresight/provider-schemas, else
//        ~/.cache/foresight/provider-schemas.
// Never throws: a cache that cannot be read or written only costs the RPC.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { GetProviderSchemaResponse } from '../providers/provider';
import { loadProtos } from './proto/load';
import { codecs, schemaFromProto, type Msg, type ProtoVersion } from './convert';
import type { Schema } from '../providers/schema';

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
      const res = lazySchemas(v, bytes.subarray(1));
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

// ---- lazy decoding -----------------------------------------------------------------------------------------

function varint(b: Buffer, pos: number): [number, number] {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= b.length) throw new Error('truncated varint');
    const x = b[pos++];
    v += (x & 0x7f) * mul;
    if (!(x & 0x80)) return [v, pos];
    mul *= 128;
  }
  throw new Error('bad varint');
}

function encodeVarint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

interface Field {
  no: number;
  /** The whole field (tag included), for re-assembly. */
  raw: Buffer;
  /** The payload of a length-delimited field. */
  body?: Buffer;
}

/** The top-level fields of a protobuf message (wire types 0, 1, 2, 5). */
function fields(b: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < b.length) {
    const start = pos;
    const [tag, p1] = varint(b, pos);
    pos = p1;
    const no = Math.floor(tag / 8);
    const wt = tag & 7;
    let body: Buffer | undefined;
    if (wt === 0) pos = varint(b, pos)[1];
    else if (wt === 1) pos += 8;
    else if (wt === 5) pos += 4;
    else if (wt === 2) {
      const [len, p2] = varint(b, pos);
      body = b.subarray(p2, p2 + len);
      pos = p2 + len;
    } else throw new Error(`unsupported wire type ${wt}`);
    if (pos > b.length) throw new Error('truncated message');
    out.push({ no, raw: b.subarray(start, pos), body });
  }
  return out;
}

const MAP_FIELDS: Record<number, 'resourceTypes' | 'dataSources' | 'ephemeralResourceTypes'> = { 2: 'resourceTypes', 3: 'dataSources', 8: 'ephemeralResourceTypes' };
const KIND = { resourceTypes: 'resource', dataSources: 'data source', ephemeralResourceTypes: 'ephemeral resource' } as const;

/** The GetProviderSchema response of a cache entry with every map entry decoded on first access (see the header). */
export function lazySchemas(v: ProtoVersion, bytes: Buffer): GetProviderSchemaResponse {
  const codec = codecFor(v);
  const small: Buffer[] = [];
  const entries: Record<string, [string, Buffer][]> = { resourceTypes: [], dataSources: [], ephemeralResourceTypes: [] };
  for (const f of fields(bytes)) {
    const which = MAP_FIELDS[f.no];
    if (!which || !f.body) {
      small.push(f.raw);
      continue;
    }
    let name = '';
    let value: Buffer = Buffer.alloc(0);
    for (const e of fields(f.body)) {
      if (e.no === 1 && e.body) name = e.body.toString('utf8');
      else if (e.no === 2 && e.body) value = e.body;
    }
    entries[which].push([name, value]);
  }
  const base = codecs(v).getProviderSchema.responseFromProto(codec.deserialize(Buffer.concat(small)), undefined as never, undefined);
  const decodeOne = (body: Buffer, where: string) => schemaFromProto(codec.deserialize(Buffer.concat([Buffer.from([0x0a]), encodeVarint(body.length), body])).provider as Msg, where);
  for (const which of ['resourceTypes', 'dataSources', 'ephemeralResourceTypes'] as const) {
    if (which === 'ephemeralResourceTypes' && !entries[which].length) continue;
    const obj: Record<string, Schema> = {};
    for (const [name, body] of entries[which]) {
      Object.defineProperty(obj, name, {
        enumerable: true,
        configurable: true,
        get() {
          const value = decodeOne(body, `${KIND[which]} ${name}`);
          Object.defineProperty(obj, name, { value, enumerable: true, configurable: true, writable: true });
          return value;
        },
        set(value: Schema) {
          Object.defineProperty(obj, name, { value, enumerable: true, configurable: true, writable: true });
        },
      });
    }
    base[which] = obj;
  }
  return base;
}

const shared = new Map<string, SchemaCache>();

/** One cache object per directory in this process. */
export function schemaCacheAt(dir: string): SchemaCache {
  let c = shared.get(dir);
  if (!c) shared.set(dir, (c = new SchemaCache(dir)));
  return c;
}
