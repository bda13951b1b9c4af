import { EVENT_COLUMNS, quoteSchema, type EventRow, type EventStore, type SqlExecutor } from '@seed/platform-event-store';

/** A stream folded up to one version (the number of events folded into it). */
export interface StreamSnapshot<S> {
  version: number;
  state: S;
}

/**
 * One stream folded, given the snapshot held: only the events after it are read (an index lookup
 * that finds nothing while the stream is unchanged), and the same snapshot comes back when there
 * are none. Positions in a stream are appended in order under expected versions, so none is ever
 * skipped. `evolve` must return new state, never change the state it is given: a snapshot handed
 * out earlier may still be in use.
 */
export async function readSnapshot<S>(
  executor: SqlExecutor,
  store: EventStore,
  streamId: string,
  fold: { initial: () => S; evolve: (state: S, event: { type: string; data: unknown }) => S },
  previous?: StreamSnapshot<S>,
): Promise<StreamSnapshot<S>> {
  const rows: EventRow[] = await executor.query(
    `SELECT ${EVENT_COLUMNS} FROM ${quoteSchema(store.schema)}.events WHERE stream_id = $1 AND stream_position > $2 ORDER BY stream_position`,
    [streamId, previous?.version ?? 0],
  );
  if (rows.length === 0) return previous ?? { version: 0, state: fold.initial() };
  const state = rows.map((row) => store.toStoredEvent(row)).reduce(fold.evolve, previous?.state ?? fold.initial());
  return { version: (rows[rows.length - 1] as EventRow).stream_position, state };
}
