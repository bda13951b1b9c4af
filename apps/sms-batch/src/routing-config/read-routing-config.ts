import type { EventStore, SqlExecutor } from '@seed/platform-event-store';
import { ROUTING_CONFIG_STREAM } from '@seed/sms-batch-contracts';
import { evolveRoutingConfig, initialRoutingConfigState, type RoutingConfigState } from '@seed/sms-batch-domain';
import { readSnapshot, type StreamSnapshot } from '../stream-snapshot';

/** The routing table at one version of its stream (the number of events folded into it). */
export type RoutingConfigSnapshot = StreamSnapshot<RoutingConfigState>;

/**
 * The routing table as stored: the `routing-config` stream folded. Every replica calls this every
 * second, so given the snapshot it holds it reads only the events after it (one index lookup that
 * finds nothing while the table is unchanged) and returns that same snapshot when there are none.
 * Positions in a stream are appended in order under expected versions, so none is ever skipped.
 */
export function readRoutingConfig(executor: SqlExecutor, store: EventStore, previous?: RoutingConfigSnapshot): Promise<RoutingConfigSnapshot> {
  // evolveRoutingConfig copies its maps: the previous snapshot, perhaps still in use, is left as it was.
  return readSnapshot(executor, store, ROUTING_CONFIG_STREAM, { initial: initialRoutingConfigState, evolve: evolveRoutingConfig }, previous);
}
