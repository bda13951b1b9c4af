import type { DataSource } from 'typeorm';
import { affectedRows, quoteSchema, type SqlExecutor } from '@seed/platform-event-store';
import { ProcessedEvents } from '../sending/processed-events';

/** A final status change with somewhere to go, as the watch read it. */
export interface WatchedFinal {
  eventId: string;
  umid: string;
  accountId: string;
  state: string;
}

/** What an operator is shown of a final status change nothing handled in time. */
export interface UnreportedFinal extends WatchedFinal {
  seenAt: string;
}

/** Watched rows are kept this long at most: an unreported one is reported (metric, log) for a week. */
const KEEP_DAYS = 7;
/** The unreported rows are counted up to this many: one index range scan, however many pile up. */
export const UNREPORTED_COUNT_CAP = 100_000;

/**
 * `final_status_watch`: the final status changes the watch consumer saw, until the intake or the
 * sender recorded each as handled (`processed_messages`: scheduled as a delivery, which the queue
 * then attempts, retries and dead-letters, or posted directly with success). One still there
 * `afterMs` after it was seen was never handled: lost between the topic and the customer.
 */
export class FinalStatusWatch {
  private readonly s: string;
  private readonly processed: ProcessedEvents;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.s = quoteSchema(schema);
    this.processed = new ProcessedEvents(this.s);
  }

  /** Records final status changes to watch (a redelivered one is kept as first seen). */
  async watch(db: SqlExecutor, finals: readonly WatchedFinal[]): Promise<void> {
    if (finals.length === 0) return;
    await db.query(
      `INSERT INTO ${this.s}.final_status_watch (event_id, umid, account_id, state)
       SELECT event_id, umid, account_id, state FROM jsonb_to_recordset($1::jsonb) AS r(event_id text, umid text, account_id text, state text)
       ON CONFLICT (event_id) DO NOTHING`,
      [JSON.stringify(finals.map((f) => ({ event_id: f.eventId, umid: f.umid, account_id: f.accountId, state: f.state })))],
    );
  }

  /** Removes the rows handled since (and any kept past the week): answers how many went. */
  async settle(): Promise<number> {
    return affectedRows(
      await this.dataSource.query(
        `DELETE FROM ${this.s}.final_status_watch w WHERE ${this.processed.handledSql('w.event_id')} OR w.seen_at < now() - interval '${KEEP_DAYS} days'`,
      ),
    );
  }

  /** The count of unreported rows (up to UNREPORTED_COUNT_CAP), as one row for the metrics' gauge. */
  unreportedCountSql(afterMs: number): string {
    return `SELECT count(*)::float8 AS unreported FROM (
              SELECT 1 FROM ${this.s}.final_status_watch w WHERE ${this.unreportedSql(String(Math.floor(afterMs)))} LIMIT ${UNREPORTED_COUNT_CAP}) u`;
  }

  /** Rows `w` seen more than `afterMs` (an SQL expression, in milliseconds) ago and not handled. */
  private unreportedSql(afterMs: string): string {
    return `w.seen_at < now() - make_interval(secs => ${afterMs}::double precision / 1000) AND NOT ${this.processed.handledSql('w.event_id')}`;
  }

  /** The oldest unreported rows, for the log. */
  async unreported(afterMs: number, limit: number): Promise<UnreportedFinal[]> {
    const rows: { event_id: string; umid: string; account_id: string; state: string; seen_at: Date }[] = await this.dataSource.query(
      `SELECT event_id, umid, account_id, state, seen_at FROM ${this.s}.final_status_watch w WHERE ${this.unreportedSql('$1')} ORDER BY w.seen_at LIMIT $2`,
      [afterMs, limit],
    );
    return rows.map((r) => ({ eventId: r.event_id, umid: r.umid, accountId: r.account_id, state: r.state, seenAt: new Date(r.seen_at).toISOString() }));
  }
}
