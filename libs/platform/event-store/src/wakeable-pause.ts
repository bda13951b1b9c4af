/**
 * A pause that a poll loop can be woken from early: the loop waits for new work at most `ms`,
 * and whoever makes work calls `wake()` instead of letting it sit out the rest.
 */
export class WakeablePause {
  private wakeUp: (() => void) | undefined;

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}
