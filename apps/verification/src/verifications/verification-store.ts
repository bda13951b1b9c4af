import { EventStore, quoteSchema, type AppendMetadata, type SqlExecutor } from '@seed/platform-event-store';
import { foldVerification, type VerificationState } from '@seed/verification-domain';
import { verificationStreamId, type VerificationEvent } from '@seed/verification-contracts';

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
    await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${this.schema}:${verificationStreamId(uid)}`]);
  }

  async load(db: SqlExecutor, uid: string): Promise<LoadedVerification> {
    const events = await this.store.readStream(db, verificationStreamId(uid));
    return {
      state: foldVerification(events as unknown as VerificationEvent[]),
      version: events.length,
      causes: new Set(events.flatMap((e) => (e.causationId ? [e.causationId] : []))),
    };
  }

  async append(db: SqlExecutor, uid: string, expectedVersion: number, events: readonly VerificationEvent[], metadata: AppendMetadata): Promise<void> {
    if (events.length === 0) return;
    await this.store.append(db, [{ streamId: verificationStreamId(uid), expectedVersion, events }], metadata);
  }
}
