import { StatementParams } from './combined-statement';
import { quoteSchema, type SqlExecutor } from './sql-executor';

/**
 * The idempotency record of a consumer: written in the same transaction as the message's effect,
 * so a redelivered message is recognised and its first result returned instead of acting twice.
 */
export class ProcessedMessages {
  private readonly table: string;

  constructor(schema: string) {
    this.table = `${quoteSchema(schema)}.processed_messages`;
  }

  async find<T>(db: SqlExecutor, consumer: string, messageId: string): Promise<{ result: T } | null> {
    const rows: { result: T }[] = await db.query(`SELECT result FROM ${this.table} WHERE consumer = $1 AND message_id = $2`, [
      consumer,
      messageId,
    ]);
    return rows[0] ?? null;
  }

  /** `find` as a column (`result`, or null) of a statement that reads other things too. */
  findColumn(params: StatementParams, consumer: string, messageId: string): string {
    return `(SELECT result FROM ${this.table} WHERE consumer = ${params.add(consumer)} AND message_id = ${params.add(messageId)})`;
  }

  /** `record` as a statement to run with others (allInOne). */
  recordStatement(params: StatementParams, consumer: string, messageId: string, result: unknown): string {
    return `INSERT INTO ${this.table} (consumer, message_id, result) VALUES (${params.add(consumer)}, ${params.add(messageId)}, ${params.add(JSON.stringify(result ?? null))}::jsonb)`;
  }

  /** Throws a unique violation if another transaction recorded the same message first. */
  async record(db: SqlExecutor, consumer: string, messageId: string, result: unknown): Promise<void> {
    const params = new StatementParams();
    await db.query(this.recordStatement(params, consumer, messageId, result), params.values);
  }
}
