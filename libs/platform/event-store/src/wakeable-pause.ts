/**
 * A pause that a poll loop can be woken from early: the loop waits for new work at most `ms`,
 * and whoever makes work calls `wake()` instead of letting it sit out the rest. A wake that comes
 * while the loop is busy is remembered: its next `wait` returns at once, so work made during a
 * batch is never left for the full pause.
 */
export class WakeablePause {
  private wakeUp: (() => void) | undefined;
  private pending = false;

  /** Resolves true when woken (now or by a wake while busy), false when the time ran out. */
  wait(ms: number): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const finish = (woken: boolean): void => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve(woken);
      };
      const timer = setTimeout(() => finish(false), ms);
      this.wakeUp = () => finish(true);
    });
  }

  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.pending = true;
  }
}
