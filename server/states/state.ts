// The in-memory Terraform state: what Terraform's internal/states package models, as plain data.
//
// Folder server/states:
//   state.ts      (this file) the model, the serialisable Change records that are its only mutation path, and
//                 SyncState, the wrapper a graph walk mutates through.
//   statefile.ts  the v4 JSON codec (read v3/v4, write v4 byte-compatible with Terraform 1.11.4). Pure.
//   statemgr.ts   capability interfaces of state managers (Reader, Writer, Persister, Locker, ...) and LockInfo.
// Storage (files, locks, the apply journal) lives in server/backends/local; nothing in this folder does I/O.
//
// Shape (as Terraform's states.State):
//   State.modules: module instance address ("" = root, `module.a["x"].module.b`) -> ModuleState
//   ModuleState.resources: resource address within the module (`aws_x.y`, `data.aws_x.y`) -> ResourceState
//   ResourceState.instances: encoded instance key ("" none, "0", `"a"` JSON-quoted) -> ResourceInstance
//   ResourceInstance: the current object (absent while only deposed objects remain) and deposed objects by key.
//   State.outputs: root module output values only (child module outputs are never persisted).
//   State.checkResults: results of checkable objects from the last run, or null (never recorded).
//
// Contracts:
// - ObjectSrc, OutputValue, CheckResult and the Change records are immutable values: whoever stores one hands
//   it over and must not mutate it afterwards; readers may share them freely. Attribute JSON is kept as the raw
//   text it arrived as (provider answer or state file), so values of unknown schema versions round-trip untouched;
//   statefile.ts normalises its layout when writing.
// - The maps of State/ModuleState/ResourceState are mutated only through applyChange (directly by single-owner
//   code such as the state commands, or through SyncState during a walk). applyChange keeps the tree pruned the
//   way Terraform does: an instance with neither current nor deposed objects is removed, and so is a resource
//   left without instances when the change removed its last object.
// - No function here throws for user data; programming errors (a malformed deposed key) throw.

export type ResourceMode = 'managed' | 'data';
/** An instance key: undefined (no count/for_each), an integer (count) or a string (for_each). */
export type InstanceKey = undefined | number | string;
export type ObjectStatus = 'ready' | 'tainted';

/**
 * One step of an attribute path as the state file stores sensitive paths. Index keys are kept as the raw
 * compact JSON of cty's dynamic encoding (`{"value":0,"type":"number"}`) so any key type survives.
 */
export type PathStep = { readonly type: 'get_attr'; readonly name: string } | { readonly type: 'index'; readonly key: string };
export type AttrPath = readonly PathStep[];

export function attrStep(name: string): PathStep {
  return { type: 'get_attr', name };
}
/** An index step for a string or integer key, encoded as Terraform does. */
export function indexStep(key: string | number): PathStep {
  return {
    type: 'index',
    key: typeof key === 'number' ? `{"value":${key},"type":"number"}` : `{"value":${JSON.stringify(key)},"type":"string"}`,
  };
}

/** A resource instance object as stored (Terraform's ResourceInstanceObjectSrc). */
export interface ObjectSrc {
  readonly schemaVersion: number;
  /** Raw JSON of the attribute object (any layout). Absent only for legacy flatmap objects (attrsFlat). */
  readonly attrsJSON?: string;
  /** Legacy flatmap attributes from pre-0.12 states, written back unchanged until a provider upgrades them. */
  readonly attrsFlat?: Readonly<Record<string, string>>;
  readonly sensitivePaths: readonly AttrPath[];
  /** Provider-private data, standard padded base64 as in the state file; undefined when empty. */
  readonly private?: string;
  readonly status: ObjectStatus;
  /** Config addresses of resources this object depends on (`module.net.aws_vpc.main`), in stored order. */
  readonly dependencies: readonly string[];
  readonly createBeforeDestroy: boolean;
}

/** A root output value: cty JSON of the value and of its type. */
export interface OutputValue {
  readonly valueJSON: string;
  readonly typeJSON: string;
  readonly sensitive: boolean;
}

export type CheckStatus = 'pass' | 'fail' | 'error' | 'unknown';
export interface CheckObjectResult {
  readonly objectAddr: string;
  readonly status: CheckStatus;
  readonly failureMessages?: readonly string[];
}
/** The aggregate result of one checkable configuration object (`resource`, `output`, `check`, `var`). */
export interface CheckResult {
  readonly objectKind: string;
  readonly configAddr: string;
  readonly status: CheckStatus;
  /** null when no instance of the object was checked (Terraform writes `"objects": null`). */
  readonly objects: readonly CheckObjectResult[] | null;
}

export interface ResourceInstance {
  readonly key: InstanceKey;
  current?: ObjectSrc;
  /**
   * Deposed key (8 lowercase hex characters) -> object. Changed only through applyChange: an instance without
   * deposed objects shares one empty map (most instances never have one, and states are copied per operation).
   */
  deposed: ReadonlyMap<string, ObjectSrc>;
}

/** The empty deposed map instances share (writableDeposed replaces it before a write). */
export const NO_DEPOSED: ReadonlyMap<string, ObjectSrc> = new Map();

function writableDeposed(is: ResourceInstance): Map<string, ObjectSrc> {
  if (is.deposed === NO_DEPOSED) is.deposed = new Map();
  return is.deposed as Map<string, ObjectSrc>;
}

export interface ResourceState {
  readonly mode: ResourceMode;
  readonly type: string;
  readonly name: string;
  /** Absolute provider configuration address, e.g. `provider["registry.terraform.io/hashicorp/aws"].west`. */
  provider: string;
  readonly instances: Map<string, ResourceInstance>;
}

export interface ModuleState {
  readonly addr: string;
  readonly resources: Map<string, ResourceState>;
}

/** Address of a resource (not instance) inside a module instance. */
export interface ResourceAddr {
  readonly module: string;
  readonly mode: ResourceMode;
  readonly type: string;
  readonly name: string;
}
export interface InstanceAddr extends ResourceAddr {
  readonly key: InstanceKey;
}

/** `aws_x.y` / `data.aws_x.y`: the resource's key inside its module. */
export function resourceKey(a: { mode: ResourceMode; type: string; name: string }): string {
  return a.mode === 'data' ? `data.${a.type}.${a.name}` : `${a.type}.${a.name}`;
}
/** Encodes an instance key for the instances map: "" none, "3", `"a"`. */
export function instanceKeyString(k: InstanceKey): string {
  return k === undefined ? '' : typeof k === 'number' ? String(k) : JSON.stringify(k);
}
/** The key as Terraform prints it after a resource address: "", "[3]", `["a"]`. */
export function instanceKeySuffix(k: InstanceKey): string {
  return k === undefined ? '' : `[${instanceKeyString(k)}]`;
}
export function resourceAddrString(a: ResourceAddr): string {
  return (a.module ? a.module + '.' : '') + resourceKey(a);
}
export function instanceAddrString(a: InstanceAddr): string {
  return resourceAddrString(a) + instanceKeySuffix(a.key);
}

/** Steps of a module instance address string: `module.a["x"].module.b` -> [["a","x"],["b",undefined]]. */
export function parseModuleInstance(addr: string): [string, InstanceKey][] {
  const out: [string, InstanceKey][] = [];
  const re = /module\.([A-Za-z_][A-Za-z0-9_-]*)(?:\[(\d+|"(?:[^"\\]|\\.)*")\])?/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < addr.length) {
    re.lastIndex = pos;
    m = re.exec(addr);
    if (!m) break;
    const k = m[2];
    out.push([m[1], k === undefined ? undefined : k.startsWith('"') ? (JSON.parse(k) as string) : Number(k)]);
    pos = re.lastIndex + (addr[re.lastIndex] === '.' ? 1 : 0);
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Terraform's InstanceKeyLess as a comparator: no key, then ints ascending, then strings ascending. */
export function compareInstanceKeys(a: InstanceKey, b: InstanceKey): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  if (typeof b === 'number') return 1;
  return cmp(a, b);
}

/**
 * Terraform's AbsResourceInstance.Less as a comparator (the order of `state list`): shallower modules first,
 * then module steps by name and key, then data before managed, type, name, instance key.
 */
export function compareInstanceAddrs(a: InstanceAddr, b: InstanceAddr): number {
  if (a.module !== b.module) {
    const ma = parseModuleInstance(a.module);
    const mb = parseModuleInstance(b.module);
    if (ma.length !== mb.length) return ma.length - mb.length;
    for (let i = 0; i < ma.length; i++) {
      const c = cmp(ma[i][0], mb[i][0]) || compareInstanceKeys(ma[i][1], mb[i][1]);
      if (c) return c;
    }
  }
  if (a.mode !== b.mode) return a.mode === 'data' ? -1 : 1;
  return cmp(a.type, b.type) || cmp(a.name, b.name) || compareInstanceKeys(a.key, b.key);
}

/** Every resource instance address in the state (with a current or deposed object), in compareInstanceAddrs order. */
export function instanceAddrs(state: State): InstanceAddr[] {
  const out: InstanceAddr[] = [];
  for (const [m, r] of state.allResources()) {
    for (const is of r.instances.values()) out.push({ module: m.addr, mode: r.mode, type: r.type, name: r.name, key: is.key });
  }
  return out.sort(compareInstanceAddrs);
}

/**
 * Terraform generates deposed keys as 8 lowercase hex characters but, reading a state file, accepts any
 * 8-character key; so does this model.
 */
export function isDeposedKey(s: string): boolean {
  return s.length === 8;
}

/** A state change: the one mutation vocabulary, applied by applyChange, journalled by the local backend. */
export type Change =
  | { readonly op: 'current'; readonly addr: InstanceAddr; readonly provider: string; readonly obj: ObjectSrc | null }
  | {
      readonly op: 'deposed';
      readonly addr: InstanceAddr;
      readonly deposedKey: string;
      readonly provider: string;
      readonly obj: ObjectSrc | null;
    }
  /** Moves the current object to a deposed slot with the given (fresh) key; no-op without a current object. */
  | { readonly op: 'depose'; readonly addr: InstanceAddr; readonly deposedKey: string }
  /** Removes the instance with all its objects. */
  | { readonly op: 'forget-instance'; readonly addr: InstanceAddr }
  | { readonly op: 'remove-resource'; readonly addr: ResourceAddr }
  | { readonly op: 'provider'; readonly addr: ResourceAddr; readonly provider: string }
  | { readonly op: 'output'; readonly name: string; readonly value: OutputValue | null }
  | { readonly op: 'checks'; readonly results: readonly CheckResult[] | null }
  /** Removes a (non-root) module instance with everything in it. */
  | { readonly op: 'remove-module'; readonly module: string }
  /** Moves a resource with all its instances (moved blocks, state mv). The destination must not exist. */
  | { readonly op: 'move-resource'; readonly from: ResourceAddr; readonly to: ResourceAddr }
  /**
   * Moves one instance with its current and deposed objects. The destination instance must not exist; its
   * resource is created with the source resource's provider when missing.
   */
  | { readonly op: 'move-instance'; readonly from: InstanceAddr; readonly to: InstanceAddr };

export class State {
  readonly modules = new Map<string, ModuleState>();
  readonly outputs = new Map<string, OutputValue>();
  checkResults: readonly CheckResult[] | null = null;

  constructor() {
    this.modules.set('', { addr: '', resources: new Map() });
  }

  get root(): ModuleState {
    return this.modules.get('')!;
  }

  ensureModule(addr: string): ModuleState {
    let m = this.modules.get(addr);
    if (!m) {
      m = { addr, resources: new Map() };
      this.modules.set(addr, m);
    }
    return m;
  }

  resource(a: ResourceAddr): ResourceState | undefined {
    return this.modules.get(a.module)?.resources.get(resourceKey(a));
  }

  instance(a: InstanceAddr): ResourceInstance | undefined {
    return this.resource(a)?.instances.get(instanceKeyString(a.key));
  }

  /** The object of an instance: the current one (deposedKey undefined) or a deposed one. */
  object(a: InstanceAddr, deposedKey?: string): ObjectSrc | undefined {
    const is = this.instance(a);
    if (!is) return undefined;
    return deposedKey === undefined ? is.current : is.deposed.get(deposedKey);
  }

  /** Every resource, in map order (callers that need Terraform's order sort with compareResources). */
  *allResources(): Iterable<[ModuleState, ResourceState]> {
    for (const m of this.modules.values()) for (const r of m.resources.values()) yield [m, r];
  }

  /** True when there are no resource objects and no root outputs (Terraform's State.Empty). */
  empty(): boolean {
    if (this.outputs.size > 0) return false;
    for (const [, r] of this.allResources()) if (r.instances.size > 0) return false;
    return true;
  }

  /** Has any managed resource instance object (what `workspace delete` and destroy prompts look at). */
  hasManagedResourceInstanceObjects(): boolean {
    for (const [, r] of this.allResources()) {
      if (r.mode !== 'managed') continue;
      for (const is of r.instances.values()) if (is.current || is.deposed.size > 0) return true;
    }
    return false;
  }

  /** A copy whose maps can be changed independently (through applyChange); the immutable objects are shared. */
  deepCopy(): State {
    const s = new State();
    for (const [addr, m] of this.modules) {
      const nm = s.ensureModule(addr);
      for (const [k, r] of m.resources) {
        const nr: ResourceState = { mode: r.mode, type: r.type, name: r.name, provider: r.provider, instances: new Map() };
        for (const [ik, is] of r.instances) {
          nr.instances.set(ik, { key: is.key, current: is.current, deposed: is.deposed.size === 0 ? NO_DEPOSED : new Map(is.deposed) });
        }
        nm.resources.set(k, nr);
      }
    }
    for (const [k, o] of this.outputs) s.outputs.set(k, o);
    s.checkResults = this.checkResults;
    return s;
  }

  /** Removes non-root modules without resources (Terraform prunes them before writing). */
  pruneModules(): void {
    for (const [addr, m] of this.modules) if (addr !== '' && m.resources.size === 0) this.modules.delete(addr);
  }
}

function ensureResource(state: State, a: ResourceAddr, provider: string): ResourceState {
  const m = state.ensureModule(a.module);
  const k = resourceKey(a);
  let r = m.resources.get(k);
  if (!r) {
    r = { mode: a.mode, type: a.type, name: a.name, provider, instances: new Map() };
    m.resources.set(k, r);
  } else if (provider) {
    r.provider = provider;
  }
  return r;
}

function ensureInstance(r: ResourceState, key: InstanceKey): ResourceInstance {
  const k = instanceKeyString(key);
  let is = r.instances.get(k);
  if (!is) {
    is = { key, deposed: NO_DEPOSED };
    r.instances.set(k, is);
  }
  return is;
}

function pruneInstance(state: State, a: InstanceAddr): void {
  const r = state.resource(a);
  if (!r) return;
  const k = instanceKeyString(a.key);
  const is = r.instances.get(k);
  if (is && !is.current && is.deposed.size === 0) r.instances.delete(k);
  if (r.instances.size === 0) state.modules.get(a.module)!.resources.delete(resourceKey(a));
}

/**
 * Applies one change to the state in place. Pure apart from mutating `state`; the same change applied to equal
 * states gives equal states (journal replay relies on this). Throws only for a malformed deposed key.
 */
export function applyChange(state: State, c: Change): void {
  switch (c.op) {
    case 'current': {
      if (c.obj) {
        ensureInstance(ensureResource(state, c.addr, c.provider), c.addr.key).current = c.obj;
      } else {
        const is = state.instance(c.addr);
        if (is) is.current = undefined;
        pruneInstance(state, c.addr);
      }
      return;
    }
    case 'deposed': {
      if (!isDeposedKey(c.deposedKey)) throw new Error(`invalid deposed key ${JSON.stringify(c.deposedKey)}`);
      if (c.obj) {
        writableDeposed(ensureInstance(ensureResource(state, c.addr, c.provider), c.addr.key)).set(c.deposedKey, c.obj);
      } else {
        const is = state.instance(c.addr);
        if (is?.deposed.has(c.deposedKey)) writableDeposed(is).delete(c.deposedKey);
        pruneInstance(state, c.addr);
      }
      return;
    }
    case 'depose': {
      if (!isDeposedKey(c.deposedKey)) throw new Error(`invalid deposed key ${JSON.stringify(c.deposedKey)}`);
      const is = state.instance(c.addr);
      if (!is || !is.current) return;
      writableDeposed(is).set(c.deposedKey, is.current);
      is.current = undefined;
      return;
    }
    case 'forget-instance': {
      const r = state.resource(c.addr);
      if (!r) return;
      r.instances.delete(instanceKeyString(c.addr.key));
      pruneInstance(state, c.addr);
      return;
    }
    case 'remove-resource':
      state.modules.get(c.addr.module)?.resources.delete(resourceKey(c.addr));
      return;
    case 'provider':
      ensureResource(state, c.addr, c.provider);
      return;
    case 'output':
      if (c.value) state.outputs.set(c.name, c.value);
      else state.outputs.delete(c.name);
      return;
    case 'checks':
      state.checkResults = c.results;
      return;
    case 'remove-module':
      if (c.module !== '') state.modules.delete(c.module);
      return;
    case 'move-resource': {
      const r = state.resource(c.from);
      if (!r) return;
      if (state.resource(c.to)) throw new Error(`move destination ${resourceAddrString(c.to)} already exists`);
      state.modules.get(c.from.module)!.resources.delete(resourceKey(c.from));
      const moved: ResourceState = { mode: c.to.mode, type: c.to.type, name: c.to.name, provider: r.provider, instances: r.instances };
      state.ensureModule(c.to.module).resources.set(resourceKey(c.to), moved);
      return;
    }
    case 'move-instance': {
      const r = state.resource(c.from);
      const is = state.instance(c.from);
      if (!r || !is) return;
      if (state.instance(c.to)) throw new Error(`move destination ${instanceAddrString(c.to)} already exists`);
      r.instances.delete(instanceKeyString(c.from.key));
      const dst = ensureResource(state, c.to, state.resource(c.to)?.provider ?? r.provider);
      dst.instances.set(instanceKeyString(c.to.key), { key: c.to.key, current: is.current, deposed: is.deposed });
      if (r.instances.size === 0) state.modules.get(c.from.module)!.resources.delete(resourceKey(c.from));
      return;
    }
  }
}

/** A fresh random deposed key not yet used by the instance (Terraform's NewDeposedKey: 4 random bytes, hex). */
export function newDeposedKey(is: ResourceInstance | undefined, random: () => number = Math.random): string {
  for (;;) {
    let k = '';
    for (let i = 0; i < 8; i++) k += Math.floor(random() * 16).toString(16);
    if (!is || !is.deposed.has(k)) return k;
  }
}

/** Receives each change after SyncState applied it, in application order. May be async (e.g. fsync). */
export type ChangeListener = (c: Change) => void | Promise<void>;

/**
 * SyncState: the state as a concurrent graph walk sees it (Terraform's states.SyncState).
 *
 * JavaScript runs one callback at a time, so each mutation is atomic by construction; what this wrapper adds is
 * ordering and durability hooks: every mutation goes through `apply`, which mutates the wrapped state
 * synchronously and then hands the change to the persistence listener: at once when nothing is queued (so a
 * synchronous listener has finished when apply() returns), else after the queued calls. Listener calls therefore
 * run one at a time in exactly the order the changes were applied, even when a listener is async; `flush()` resolves
 * once every change applied so far has been handled (and rejects with the first listener failure, which also
 * stops later notifications: a persistence layer that lost one record must not record later ones).
 * Readers get the wrapped state's immutable objects; they must not mutate the maps they reach through `state`.
 * After `close()` further mutations throw.
 */
export class SyncState {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  private failure: unknown = undefined;
  private closed = false;

  constructor(
    private readonly st: State,
    private readonly listener?: ChangeListener,
  ) {}

  /** Read access to the live state (do not mutate; use apply). */
  get state(): State {
    return this.st;
  }

  apply(c: Change): void {
    if (this.closed) throw new Error('SyncState used after close');
    applyChange(this.st, c);
    const l = this.listener;
    if (!l || this.failure !== undefined) return;
    if (this.pending === 0) {
      // Nothing queued: call the listener at once, so a synchronous listener (the local backend's journal) has
      // made the change durable by the time apply() returns.
      let r: void | Promise<void>;
      try {
        r = l(c);
      } catch (e) {
        this.failure = e;
        return;
      }
      if (r instanceof Promise) this.enqueue(() => r as Promise<void>);
      return;
    }
    this.enqueue(() => l(c));
  }

  private enqueue(run: () => void | Promise<void>): void {
    this.pending++;
    this.tail = this.tail.then(async () => {
      try {
        if (this.failure === undefined) await run();
      } catch (e) {
        this.failure = e;
      } finally {
        this.pending--;
      }
    });
  }

  /** The first listener failure, if any (the walk should stop making changes once this is set). */
  get persistenceFailure(): unknown {
    return this.failure;
  }

  setResourceInstanceCurrent(addr: InstanceAddr, obj: ObjectSrc | null, provider: string): void {
    this.apply({ op: 'current', addr, obj, provider });
  }
  setResourceInstanceDeposed(addr: InstanceAddr, deposedKey: string, obj: ObjectSrc | null, provider: string): void {
    this.apply({ op: 'deposed', addr, deposedKey, obj, provider });
  }
  /** Deposes the current object under a fresh key and returns the key, or undefined when there was none. */
  deposeResourceInstanceObject(addr: InstanceAddr, random?: () => number): string | undefined {
    const is = this.st.instance(addr);
    if (!is?.current) return undefined;
    const deposedKey = newDeposedKey(is, random);
    this.apply({ op: 'depose', addr, deposedKey });
    return deposedKey;
  }
  forgetResourceInstanceAll(addr: InstanceAddr): void {
    this.apply({ op: 'forget-instance', addr });
  }
  removeResource(addr: ResourceAddr): void {
    this.apply({ op: 'remove-resource', addr });
  }
  setOutputValue(name: string, value: OutputValue | null): void {
    this.apply({ op: 'output', name, value });
  }
  setCheckResults(results: readonly CheckResult[] | null): void {
    this.apply({ op: 'checks', results });
  }

  object(addr: InstanceAddr, deposedKey?: string): ObjectSrc | undefined {
    return this.st.object(addr, deposedKey);
  }

  /** Resolves when every change so far has reached the listener; rejects with the first listener error. */
  async flush(): Promise<void> {
    await this.tail;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Flushes, forbids further mutations and returns the state (Terraform's SyncState.Close). */
  async close(): Promise<State> {
    await this.flush();
    this.closed = true;
    return this.st;
  }
}
