// A counting semaphore: Terraform's -parallelism limit on concurrent provider operations during a walk.
// Contract: at most `n` holders at once; waiters are served first-come first-served; `run` releases even when
// the function throws. A release hands the slot straight to the oldest waiter (no timer, no extra tick), and the
// waiter queue is a ring of indices (O(1) per acquire/release: Array.shift is linear on long queues, which made a
// 3,000-node walk quadratic).

export class Semaphore {
  private held = 0;
  private waiters: (() => void)[] = [];
  private head = 0;

  constructor(readonly n: number) {
    if (!(n >= 1)) throw new Error(`semaphore size ${n}`);
  }

  acquire(): Promise<void> {
    if (this.held < this.n) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise<void>((r) => this.waiters.push(r));
  }

  release(): void {
    if (this.head < this.waiters.length) {
      const w = this.waiters[this.head];
      this.waiters[this.head++] = undefined as unknown as () => void;
      if (this.head === this.waiters.length) {
        this.waiters = [];
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= this.waiters.length) {
        this.waiters = this.waiters.slice(this.head);
        this.head = 0;
      }
      w();
    } else this.held--;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

/**
 * Runs the tasks with at most `limit` of them in flight, in order; resolves with their results in order, or
 * rejects with the first rejection (tasks already started go on, as with Promise.all). A walk starts the
 * instances of a node this way so that they do not all hold their intermediate values at once.
 */
export async function runLimited<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]();
    }
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < Math.min(Math.max(1, limit), tasks.length); w++) workers.push(worker());
  await Promise.all(workers);
  return out;
}
