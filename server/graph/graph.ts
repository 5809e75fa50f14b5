// Dependency graphs and their concurrent walk (Terraform's internal/dag and the graph walker of
// internal/terraform), in linear time.
//
// Folder server/graph:
//   graph.ts   (this file) Graph (nodes by key, "depends on" edges), cycle detection (Tarjan's strongly connected
//              components, O(V+E)), and `walk`: runs every node once all its dependencies finished, as many at
//              once as are ready, skipping the dependents of failed nodes, honouring cancellation.
//   semaphore.ts  the counting semaphore behind -parallelism.
//
// Contracts:
// - Edges point from a dependent to its dependency: `connect(a, b)` means "a runs after b". Connecting unknown
//   keys is a bug (throws). Duplicate edges are ignored; no transitive reduction is done (it is quadratic and a walk
//   does not need it).
// - `cycles()` returns every strongly connected component with more than one node (and self-loops), each listed
//   in insertion order of its nodes, so messages are deterministic.
// - `walk` never runs a node twice, runs a node only after every dependency completed successfully, marks the
//   transitive dependents of a failed node "skipped" without running them, and after `signal` aborts starts nothing
//   new (nodes not started are "cancelled") but waits for running nodes. Graphs with cycles must not be walked
//   (the nodes of a cycle would never be ready; walk reports them as "cancelled").

export class Graph<N> {
  private readonly nodes = new Map<string, N>();
  private readonly order = new Map<string, number>();
  /** key -> keys it depends on */
  private readonly deps = new Map<string, Set<string>>();

  add(key: string, node: N): void {
    if (this.nodes.has(key)) {
      this.nodes.set(key, node);
      return;
    }
    this.nodes.set(key, node);
    this.order.set(key, this.order.size);
    this.deps.set(key, new Set());
  }

  has(key: string): boolean {
    return this.nodes.has(key);
  }

  get(key: string): N | undefined {
    return this.nodes.get(key);
  }

  get size(): number {
    return this.nodes.size;
  }

  keys(): IterableIterator<string> {
    return this.nodes.keys();
  }

  entries(): IterableIterator<[string, N]> {
    return this.nodes.entries();
  }

  /** `from` depends on `to` (runs after it). */
  connect(from: string, to: string): void {
    const d = this.deps.get(from);
    if (!d || !this.nodes.has(to)) throw new Error(`graph: connect unknown node ${!d ? from : to}`);
    d.add(to);
  }

  dependencies(key: string): ReadonlySet<string> {
    return this.deps.get(key) ?? new Set();
  }

  /** Every node's dependents (reverse adjacency), built in O(V+E). */
  dependents(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const k of this.nodes.keys()) out.set(k, []);
    for (const [k, ds] of this.deps) for (const d of ds) out.get(d)!.push(k);
    return out;
  }

  /** Strongly connected components of size > 1 and self-loops, iteratively (no recursion depth limits). */
  cycles(): string[][] {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const result: string[][] = [];
    let next = 0;
    for (const start of this.nodes.keys()) {
      if (index.has(start)) continue;
      const work: [string, Iterator<string>][] = [];
      const visit = (v: string) => {
        index.set(v, next);
        low.set(v, next);
        next++;
        stack.push(v);
        onStack.add(v);
        work.push([v, this.deps.get(v)!.values()]);
      };
      visit(start);
      while (work.length) {
        const [v, it] = work[work.length - 1];
        const n = it.next();
        if (!n.done) {
          const w = n.value;
          if (!index.has(w)) visit(w);
          else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
          continue;
        }
        work.pop();
        if (work.length) {
          const parent = work[work.length - 1][0];
          low.set(parent, Math.min(low.get(parent)!, low.get(v)!));
        }
        if (low.get(v) === index.get(v)) {
          const comp: string[] = [];
          let w: string;
          do {
            w = stack.pop()!;
            onStack.delete(w);
            comp.push(w);
          } while (w !== v);
          if (comp.length > 1 || this.deps.get(v)!.has(v)) {
            comp.sort((a, b) => this.order.get(a)! - this.order.get(b)!);
            result.push(comp);
          }
        }
      }
    }
    return result;
  }
}

/** How a node's execution ended. */
export type NodeOutcome = 'ok' | 'failed' | 'skipped' | 'cancelled';

export interface WalkOptions {
  /** Aborting stops new nodes from starting; running ones finish. */
  signal?: AbortSignal;
  /**
   * Start order among nodes that become ready at the same moment (a stable order makes progress output
   * deterministic). Without it, insertion order.
   */
  order?: (a: string, b: string) => number;
  /**
   * At most this many nodes running at once (default: no limit). A node's exec must not wait for another node
   * other than through the graph's edges, or a limit could starve it.
   */
  concurrency?: number;
}

/**
 * Runs `exec` for every node once its dependencies succeeded. `exec` resolves true for success, false for a
 * failure (user error already reported by the caller); a thrown exception is a bug and rejects the walk after
 * running nodes settle. Returns each node's outcome. An `exec` that answers at once (a boolean, not a promise)
 * finishes its node at once: its dependents are ready for the same turn of the loop (an incremental plan replays
 * thousands of nodes this way without a promise each).
 */
export async function walk<N>(g: Graph<N>, exec: (key: string, node: N) => boolean | Promise<boolean>, opts: WalkOptions = {}): Promise<Map<string, NodeOutcome>> {
  const outcome = new Map<string, NodeOutcome>();
  const dependents = g.dependents();
  const pending = new Map<string, number>();
  const ready: string[] = [];
  for (const k of g.keys()) {
    const n = g.dependencies(k).size;
    pending.set(k, n);
    if (n === 0) ready.push(k);
  }
  let running = 0;
  let bug: unknown = undefined;
  let wake: (() => void) | undefined;

  if (opts.order) ready.sort(opts.order);
  let head = 0; // ready[head..] are waiting to start (an index, not shift(), keeps this linear)
  const finish = (k: string, o: NodeOutcome) => {
    outcome.set(k, o);
    const before = ready.length;
    // Iterative propagation: dependents of a failed or skipped node are skipped.
    const queue: [string, NodeOutcome][] = [[k, o]];
    while (queue.length) {
      const [key, oc] = queue.pop()!;
      for (const d of dependents.get(key)!) {
        if (outcome.has(d)) continue;
        if (oc !== 'ok') {
          outcome.set(d, 'skipped');
          queue.push([d, 'skipped']);
          continue;
        }
        const left = pending.get(d)! - 1;
        pending.set(d, left);
        if (left === 0) ready.push(d);
      }
    }
    if (opts.order && ready.length - before > 1) {
      const fresh = ready.splice(before).sort(opts.order);
      ready.push(...fresh);
    }
  };

  const aborted = () => opts.signal?.aborted === true || bug !== undefined;
  const limit = opts.concurrency ?? Infinity;

  for (;;) {
    while (head < ready.length && running < limit && !aborted()) {
      const k = ready[head++];
      if (outcome.has(k)) continue;
      const node = g.get(k)!;
      let r: boolean | Promise<boolean>;
      try {
        r = exec(k, node);
      } catch (e) {
        if (bug === undefined) bug = e;
        outcome.set(k, 'failed');
        continue;
      }
      if (typeof r === 'boolean') {
        finish(k, r ? 'ok' : 'failed');
        continue;
      }
      running++;
      r.then(
        (ok) => {
          running--;
          finish(k, ok ? 'ok' : 'failed');
          wake?.();
        },
        (e) => {
          running--;
          if (bug === undefined) bug = e;
          outcome.set(k, 'failed');
          wake?.();
        },
      );
    }
    if (running === 0) break;
    await new Promise<void>((r) => {
      wake = r;
    });
    wake = undefined;
  }
  if (bug !== undefined) throw bug;
  for (const k of g.keys()) if (!outcome.has(k)) outcome.set(k, 'cancelled');
  return outcome;
}
