import { EVENT_COLUMNS, quoteSchema, type EventRow, type EventStore, type SqlExecutor } from '@seed/platform-event-store';
import { ROUTING_CONFIG_STREAM } from '@seed/sms-batch-contracts';
import { evolveRoutingConfig, initialRoutingConfigState, type RoutingConfigState } from '@seed/sms-batch-domain';

/** The routing table at one version of its stream (the number of events folded into it). */
export interface RoutingConfigSnapshot {
  version: number;
  state: RoutingConfigState;
}

/**
 * The routing table as stored: the `routing-config` stream folded. Every replica calls this every
 * second, so given the snapshot it holds it reads only the events after it (one index lookup that
 * finds nothing while the table is unchanged) and returns that same snapshot when there are none.
 * Positions in a stream are appended in order under expected versions, so none is ever skipped.
 */
export async function readRoutingConfig(executor: SqlExecutor, store: EventStore, previous?: RoutingConfigSnapshot): Promise<RoutingConfigSnapshot> {
  const after = previous?.version ?? 0;
  const rows: EventRow[] = await executor.query(
    `SELECT ${EVENT_COLUMNS} FROM ${quoteSchema(store.schema)}.events WHERE stream_id = $1 AND stream_position > $2 ORDER BY stream_position`,
    [ROUTING_CONFIG_STREAM, after],
  );
  if (rows.length === 0) return previous ?? { version: 0, state: initialRoutingConfigState() };
  // evolveRoutingConfig copies its maps: the previous snapshot, perhaps still in use, is left as it was.
  const state = rows.map((row) => store.toStoredEvent(row)).reduce(evolveRoutingConfig, previous?.state ?? initialRoutingConfigState());
  return { version: (rows[rows.length - 1] as EventRow).stream_position, state };
}
