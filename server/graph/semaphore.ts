// A counting semaphore: Terraform's -parallelism limit on concurrent provider operations during a walk.
// Contract: at most `n` holders at once; waiters are served first-come first-served; `run` releases even when
// the function throws.

export class Semaphore {
  private held = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly n: number) {
    if (!(n >= 1)) throw new Error(`semaphore size ${n}`);
  }

  async acquire(): Promise<void> {
    if (this.held < this.n) {
      this.held++;
      return;
    }
    await new Promise<void>((r) => this.waiters.push(r));
  }

  release(): void {
    const w = this.waiters.shift();
    if (w) w();
    else this.held--;
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
