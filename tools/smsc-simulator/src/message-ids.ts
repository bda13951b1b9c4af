/**
 * Message ids as SMSCs hand them out: a counter from a random start, so that ids differ between
 * runs, shown in hex or in decimal (the format can change at run time; ids stay unique).
 */
export class MessageIdGenerator {
  private next: number;

  constructor(random: () => number = Math.random) {
    this.next = 0x10000000 + Math.floor(random() * 0x6fffffff);
  }

  generate(format: 'hex' | 'decimal'): string {
    const value = this.next++;
    return format === 'hex' ? value.toString(16) : value.toString(10);
  }
}
