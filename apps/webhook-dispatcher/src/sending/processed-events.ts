import type { SqlExecutor } from '@seed/platform-event-store';

/** The consumer name status events are recorded under in `processed_messages`. */
const CONSUMER = 'sms-batch-events';

/**
 * Which of sms-batch's status events were handled (`processed_messages`): recorded in the
 * transaction that schedules them as deliveries (by the intake, or by the write-down of a direct
 * delivery), or once a direct delivery of theirs succeeded. A redelivered event schedules nothing
 * twice, and the final-status reconciliation finds every handled one here.
 */
export class ProcessedEvents {
  /** `s`: the service's quoted schema. */
  constructor(private readonly s: string) {}

  /** An SQL condition: the status event whose id is in `eventIdColumn` was recorded as handled. */
  handledSql(eventIdColumn: string): string {
    return `EXISTS (SELECT 1 FROM ${this.s}.processed_messages p WHERE p.consumer = '${CONSUMER}' AND p.message_id = ${eventIdColumn})`;
  }

  /** The events among `eventIds` recorded already. */
  async among(db: SqlExecutor, eventIds: string[]): Promise<Set<string>> {
    const rows: { message_id: string }[] = await db.query(`SELECT message_id FROM ${this.s}.processed_messages WHERE consumer = $1 AND message_id = ANY($2::text[])`, [CONSUMER, eventIds]);
    return new Set(rows.map((r) => r.message_id));
  }

  /** Records the events; answers those that were not recorded yet (each once). */
  async record(db: SqlExecutor, eventIds: string[]): Promise<Set<string>> {
    const rows: { message_id: string }[] = await db.query(
      `INSERT INTO ${this.s}.processed_messages (consumer, message_id, result)
       SELECT $1, id, NULL FROM unnest($2::text[]) AS id
       ON CONFLICT (consumer, message_id) DO NOTHING RETURNING message_id`,
      [CONSUMER, [...new Set(eventIds)]],
    );
    return new Set(rows.map((r) => r.message_id));
  }
}
