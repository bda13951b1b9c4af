import { EventStore, lockKeys, lockSlot, quoteSchema, type AppendMetadata, type AppendToStream, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';
import { foldVerification, type VerificationState } from '@seed/verification-domain';
import { verificationStreamId, type VerificationEvent } from '@seed/verification-contracts';

/** Events for one verification stream, with the correlation, cause and trace of what decided them. */
export interface VerificationAppend {
  uid: string;
  expectedVersion: number;
  events: readonly VerificationEvent[];
  metadata: AppendMetadata;
}

export interface LoadedVerification {
  state: VerificationState;
  version: number;
  /** Ids of the commands (and events) that caused the stream's events: a redelivered command is in it. */
  causes: ReadonlySet<string>;
}

/**
 * Reads and appends verification streams. Writers first take the stream's transaction-scoped
 * advisory lock, so concurrent commands for one uid (parallel validations, the SMS follower)
 * queue instead of conflicting; the expected-version append still guards against any writer
 * that did not lock.
 */
export class VerificationStore {
  constructor(
    private readonly store: EventStore,
    private readonly schema: string,
  ) {
    quoteSchema(schema);
  }

  async lock(db: SqlExecutor, uid: string): Promise<void> {
    await lockKeys(db, this.schema, [lockSlot('verification', uid)]);
  }

  /** The locks of several streams, taken in one order. */
  async lockAll(db: SqlExecutor, uids: readonly string[]): Promise<void> {
    if (uids.length === 0) return;
    await lockKeys(db, this.schema, uids.map((uid) => lockSlot('verification', uid)));
  }

  async load(db: SqlExecutor, uid: string): Promise<LoadedVerification> {
    return loaded(await this.store.readStream(db, verificationStreamId(uid)));
  }

  /** Several streams in one round trip. */
  async loadAll(db: SqlExecutor, uids: readonly string[]): Promise<Map<string, LoadedVerification>> {
    const streams = await this.store.readStreams(db, uids.map(verificationStreamId));
    return new Map(uids.map((uid) => [uid, loaded(streams.get(verificationStreamId(uid)) ?? [])]));
  }

  /** The append of events to one stream, for a decision the CommandPipeline appends. */
  appendOf(uid: string, expectedVersion: number, events: readonly VerificationEvent[]): AppendToStream {
    return { streamId: verificationStreamId(uid), expectedVersion, events };
  }

  async append(db: SqlExecutor, uid: string, expectedVersion: number, events: readonly VerificationEvent[], metadata: AppendMetadata): Promise<void> {
    if (events.length === 0) return;
    await this.store.append(db, [{ streamId: verificationStreamId(uid), expectedVersion, events }], metadata);
  }

  /**
   * Appends to several streams in one statement, each with its own correlation, cause and trace.
   * Each stream at most once: the statement checks one expected version per stream.
   */
  async appendAll(db: SqlExecutor, appends: readonly VerificationAppend[]): Promise<void> {
    const due = appends.filter((a) => a.events.length > 0);
    if (!due[0]) return;
    const streams = due.map(({ uid, expectedVersion, events, metadata }) => ({
      streamId: verificationStreamId(uid),
      expectedVersion,
      events,
      correlationId: metadata.correlationId,
      causationId: metadata.causationId,
      traceparent: metadata.traceparent ?? null,
    }));
    await this.store.append(db, streams, due[0].metadata);
  }

}

function loaded(events: readonly StoredEvent[]): LoadedVerification {
  return {
    state: foldVerification(events as unknown as VerificationEvent[]),
    version: events.length,
    causes: new Set(events.flatMap((e) => (e.causationId ? [e.causationId] : []))),
  };
}
