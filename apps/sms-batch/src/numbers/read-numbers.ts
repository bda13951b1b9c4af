import type { EventStore, SqlExecutor } from '@seed/platform-event-store';
import { NUMBERS_STREAM } from '@seed/sms-batch-contracts';
import { evolveNumbers, initialNumbersState, type NumbersState } from '@seed/sms-batch-domain';
import { readSnapshot, type StreamSnapshot } from '../stream-snapshot';

/** The numbers at one version of their stream. */
export type NumbersSnapshot = StreamSnapshot<NumbersState>;

/** The `numbers` stream folded; given the snapshot held, only what came after it is read (the inbound path asks every second). */
export function readNumbers(executor: SqlExecutor, store: EventStore, previous?: NumbersSnapshot): Promise<NumbersSnapshot> {
  return readSnapshot(executor, store, NUMBERS_STREAM, { initial: initialNumbersState, evolve: evolveNumbers }, previous);
}
