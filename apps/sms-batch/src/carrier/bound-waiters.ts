/**
 * The senders waiting for some carrier to be bound, so that one with nothing to send does not poll:
 * each is woken when a session binds (or a tick finds one bound elsewhere), or at its timeout.
 */
export class BoundWaiters {
  private readonly waiting: (() => void)[] = [];

  /** True once woken; at the timeout, whether `anyBound` holds then. */
  wait(timeoutMs: number, anyBound: () => boolean): Promise<boolean> {
    if (anyBound()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(wake);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(anyBound());
      }, timeoutMs);
      this.waiting.push(wake);
    });
  }

  wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }
}
