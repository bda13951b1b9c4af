/**
 * Message ids as SMSCs hand them out: a counter from a random start, so that ids differ between
 * runs, shown in hex or in decimal (the format can change at run time; ids stay unique). A given
 * start (SMSC_MESSAGE_ID_START) lets several simulators hand out ids from ranges that never meet.
 */
export class MessageIdGenerator {
  private next: number;

  constructor(random: () => number = Math.random, start: number | null = null) {
    this.next = start ?? 0x10000000 + Math.floor(random() * 0x6fffffff);
  }

  generate(format: 'hex' | 'decimal'): string {
    const value = this.next++;
    return format === 'hex' ? value.toString(16) : value.toString(10);
  }
}
