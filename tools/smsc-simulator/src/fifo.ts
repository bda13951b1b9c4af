/** Array-backed queue with O(1) shift: receipt queues reach tens of thousands while an ESME is away. */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Puts items back in front, in their order (rare: a session closed with receipts in flight). */
  unshiftAll(items: readonly T[]): void {
    this.items = [...items, ...this.items.slice(this.head)];
    this.head = 0;
  }
}
