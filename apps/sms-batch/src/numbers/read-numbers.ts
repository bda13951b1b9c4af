import { EVENT_COLUMNS, quoteSchema, type EventRow, type EventStore, type SqlExecutor } from '@seed/platform-event-store';
import { NUMBERS_STREAM } from '@seed/sms-batch-contracts';
import { evolveNumbers, initialNumbersState, type NumbersState } from '@seed/sms-batch-domain';

/** The numbers at one version of their stream. */
export interface NumbersSnapshot {
  version: number;
  state: NumbersState;
}

/**
 * The `numbers` stream folded. Given the snapshot held, only the events after it are read, and the
 * same snapshot comes back when there are none (the inbound path asks every second).
 */
export async function readNumbers(executor: SqlExecutor, store: EventStore, previous?: NumbersSnapshot): Promise<NumbersSnapshot> {
  const rows: EventRow[] = await executor.query(
    `SELECT ${EVENT_COLUMNS} FROM ${quoteSchema(store.schema)}.events WHERE stream_id = $1 AND stream_position > $2 ORDER BY stream_position`,
    [NUMBERS_STREAM, previous?.version ?? 0],
  );
  if (rows.length === 0) return previous ?? { version: 0, state: initialNumbersState() };
  const state = rows.map((row) => store.toStoredEvent(row)).reduce(evolveNumbers, previous?.state ?? initialNumbersState());
  return { version: (rows[rows.length - 1] as EventRow).stream_position, state };
}
