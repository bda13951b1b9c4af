import { roomStreamId, type RoomEvent } from '@seed/agent-token-contracts';
import { decideRoom, evolveRoom, foldRoom, type RoomCommand, type RoomState } from '@seed/agent-token-domain';
import type { AppendMetadata, Decision, EventStore, SqlExecutor } from '@seed/platform-event-store';

export interface RoomDecision {
  after: RoomState;
  events: RoomEvent[];
}

/**
 * A room's stream: read it, fold, decide what to append at the version read. Commands run the
 * decision through the CommandPipeline, which appends it and decides again on what the other
 * writer wrote when two writers of one room come together; a follower already in a transaction
 * of its own appends it with `execute`.
 */
export class RoomStore {
  constructor(private readonly store: EventStore) {}

  async load(db: SqlExecutor, roomId: string): Promise<{ state: RoomState; version: number }> {
    const stored = await this.store.readStream(db, roomStreamId(roomId));
    return { state: foldRoom(stored as unknown as RoomEvent[]), version: stored.length };
  }

  async decide(db: SqlExecutor, roomId: string, command: RoomCommand): Promise<Decision<RoomDecision>> {
    const { state, version } = await this.load(db, roomId);
    const events = decideRoom(command, state);
    return { appends: [{ streamId: roomStreamId(roomId), expectedVersion: version, events }], result: { after: events.reduce(evolveRoom, state), events } };
  }

  async execute(db: SqlExecutor, roomId: string, command: RoomCommand, metadata: AppendMetadata): Promise<RoomDecision> {
    const { appends, result } = await this.decide(db, roomId, command);
    if (result.events.length > 0) await this.store.append(db, appends, metadata);
    return result;
  }
}
