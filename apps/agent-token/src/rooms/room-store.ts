import { roomStreamId, type RoomEvent } from '@seed/agent-token-contracts';
import { decideRoom, evolveRoom, foldRoom, type RoomCommand, type RoomState } from '@seed/agent-token-domain';
import { ConcurrencyError, type AppendMetadata, type EventStore, type SqlExecutor } from '@seed/platform-event-store';

export const MAX_CONFLICT_RETRIES = 5;

export interface RoomDecision {
  after: RoomState;
  events: RoomEvent[];
}

/**
 * The command pipeline of a room: read its stream, fold, decide, append with the version read.
 * Two writers of one room cannot both append; the loser gets a ConcurrencyError and the caller
 * runs its transaction again (see `withConflictRetry`), deciding on what the winner wrote.
 */
export class RoomStore {
  constructor(private readonly store: EventStore) {}

  async load(db: SqlExecutor, roomId: string): Promise<{ state: RoomState; version: number }> {
    const stored = await this.store.readStream(db, roomStreamId(roomId));
    return { state: foldRoom(stored as unknown as RoomEvent[]), version: stored.length };
  }

  async execute(db: SqlExecutor, roomId: string, command: RoomCommand, metadata: AppendMetadata): Promise<RoomDecision> {
    const { state, version } = await this.load(db, roomId);
    const events = decideRoom(command, state);
    if (events.length > 0) {
      await this.store.append(db, [{ streamId: roomStreamId(roomId), expectedVersion: version, events }], metadata);
    }
    return { after: events.reduce(evolveRoom, state), events };
  }
}

/** Runs `work` (one transaction) again after a concurrent append, a few times. */
export async function withConflictRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ConcurrencyError && attempt < MAX_CONFLICT_RETRIES) continue;
      throw error;
    }
  }
}
