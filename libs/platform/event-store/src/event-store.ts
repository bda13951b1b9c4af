import { v7 as uuidv7 } from 'uuid';
import type { NewEvent } from '@seed/contracts';
import { quoteSchema, type SqlExecutor } from './sql-executor';
import { EVENT_COLUMNS, type EventRow, type StoredEvent } from './stored-event';
import { isUpcast, upcast, type Upcaster } from './upcaster';

/** Another writer appended to the stream since it was read; re-read, re-decide, retry. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';
}

export interface AppendToStream {
  streamId: string;
  /** Number of events the writer saw in the stream (0: the stream must not exist yet). */
  expectedVersion: number;
  events: readonly NewEvent[];
  /** This stream's trace, when it is not the append's (one append records many messages' work). */
  traceparent?: string | null;
  /** This stream's correlation and cause, when they are not the append's (one append, many requests' work). */
  correlationId?: string;
  causationId?: string | null;
}

export interface AppendMetadata {
  correlationId: string;
  causationId: string | null;
  traceparent?: string | null;
  occurredAt: string;
}

const UNIQUE_VIOLATION = '23505';

type EventMetadata = { correlationId: string; causationId: string | null; traceparent: string | null };

/** The append's metadata, with what the stream sets for itself instead. */
function streamMetadata(meta: EventMetadata, a: AppendToStream): EventMetadata {
  if (a.traceparent === undefined && a.correlationId === undefined && a.causationId === undefined) return meta;
  return {
    correlationId: a.correlationId ?? meta.correlationId,
    causationId: a.causationId === undefined ? meta.causationId : a.causationId,
    traceparent: a.traceparent === undefined ? meta.traceparent : a.traceparent,
  };
}

/**
 * The append-only log of one service, in that service's Postgres schema. Appends are bulk
 * inserts (one statement for any number of streams), guarded by expected versions: the unique
 * (stream_id, stream_position) constraint makes two concurrent writers of a stream fail one of them.
 */
export class EventStore {
  private readonly table: string;

  constructor(
    readonly schema: string,
    private readonly upcasters: readonly Upcaster[] = [],
    /**
     * Time-ordered (UUIDv7) by default: the unique index on event ids then grows at its end instead
     * of at random places, as sms-batch's umids do (docs/adr/0001-batch-sms-rules.md, "Ids").
     */
    private readonly newId: () => string = uuidv7,
  ) {
    this.table = `${quoteSchema(schema)}.events`;
  }

  async append(db: SqlExecutor, appends: readonly AppendToStream[], metadata: AppendMetadata): Promise<StoredEvent[]> {
    const meta: EventMetadata = { correlationId: metadata.correlationId, causationId: metadata.causationId, traceparent: metadata.traceparent ?? null };
    const rows = appends.flatMap((a) =>
      // Rows go in in this order, so one stream's positions ascend with the global position.
      a.events.map((event, i) => ({
        event_id: this.newId(),
        stream_id: a.streamId,
        stream_position: a.expectedVersion + i + 1,
        type: event.type,
        schema_version: event.schemaVersion,
        data: event.data,
        metadata: streamMetadata(meta, a),
        occurred_at: metadata.occurredAt,
      })),
    );
    if (rows.length === 0) return [];
    try {
      // One statement, one round trip: streams expected to exist must be at exactly their expected
      // version (a writer whose version is ahead would leave a gap the unique constraint cannot
      // see), else nothing is inserted; a writer that is behind, or a concurrent one, is stopped by
      // the unique (stream_id, stream_position) constraint. Only the positions come back: echoing
      // 10,000 event bodies would cost more than inserting them.
      const existing = appends.filter((a) => a.expectedVersion > 0).map((a) => ({ stream_id: a.streamId, version: a.expectedVersion }));
      const inserted: { event_id: string; global_position: string; transaction_id: string }[] = await db.query(
        `WITH mismatched AS (
           SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS e(stream_id text, version int)
            WHERE e.version <> coalesce((SELECT max(stream_position) FROM ${this.table} s WHERE s.stream_id = e.stream_id), 0)
            LIMIT 1)
         INSERT INTO ${this.table} (event_id, stream_id, stream_position, type, schema_version, data, metadata, occurred_at)
         SELECT event_id, stream_id, stream_position, type, schema_version, data, metadata, occurred_at
           FROM json_to_recordset($1::json) AS r(event_id uuid, stream_id text, stream_position int, type text,
                schema_version int, data json, metadata json, occurred_at timestamptz)
          WHERE NOT EXISTS (SELECT 1 FROM mismatched)
         RETURNING event_id, global_position, transaction_id::text AS transaction_id`,
        [JSON.stringify(rows), JSON.stringify(existing)],
      );
      if (inserted.length === 0) {
        const streams = existing.slice(0, 5).map((e) => `${e.stream_id}@${e.version}`).join(', ');
        throw new ConcurrencyError(`a stream is not at its expected version (expected ${streams}${existing.length > 5 ? ', ...' : ''})`);
      }
      const positions = new Map(inserted.map((r) => [r.event_id, r]));
      return rows.map((row) => ({
        eventId: row.event_id,
        type: row.type,
        schemaVersion: row.schema_version,
        streamId: row.stream_id,
        streamPosition: row.stream_position,
        globalPosition: String(positions.get(row.event_id)?.global_position),
        transactionId: String(positions.get(row.event_id)?.transaction_id),
        occurredAt: new Date(row.occurred_at).toISOString(),
        correlationId: row.metadata.correlationId,
        causationId: row.metadata.causationId,
        traceparent: row.metadata.traceparent,
        data: row.data,
      }));
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConcurrencyError(`a stream was appended to concurrently: ${describe(error)}`);
      throw error;
    }
  }

  async readStream(db: SqlExecutor, streamId: string): Promise<StoredEvent[]> {
    const rows: EventRow[] = await db.query(
      `SELECT ${EVENT_COLUMNS} FROM ${this.table} WHERE stream_id = $1 ORDER BY stream_position`,
      [streamId],
    );
    return rows.map((row) => this.toStoredEvent(row));
  }

  /** Several streams in one round trip, each in stream order; absent streams map to []. */
  async readStreams(db: SqlExecutor, streamIds: readonly string[]): Promise<Map<string, StoredEvent[]>> {
    const result = new Map<string, StoredEvent[]>(streamIds.map((id) => [id, []]));
    if (streamIds.length === 0) return result;
    const rows: EventRow[] = await db.query(
      `SELECT ${EVENT_COLUMNS} FROM ${this.table} WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_position`,
      [streamIds],
    );
    for (const row of rows) result.get(row.stream_id)?.push(this.toStoredEvent(row));
    return result;
  }

  /**
   * A row as an event, its body upcast to the current shape. With `bodies: 'text'` the row's `data`
   * is the body's JSON text and stays text (see `EventHandler.bodies`): an upcast body is parsed,
   * upcast and written back to text, so a text body is always of the current shape too.
   */
  toStoredEvent(row: EventRow, bodies: 'parsed' | 'text' = 'parsed'): StoredEvent {
    const { schemaVersion, data } = bodies === 'parsed' ? upcast(this.upcasters, { type: row.type, schemaVersion: row.schema_version, data: row.data }) : this.upcastText(row);
    return {
      eventId: row.event_id,
      type: row.type,
      schemaVersion,
      streamId: row.stream_id,
      streamPosition: row.stream_position,
      globalPosition: String(row.global_position),
      transactionId: String(row.transaction_id),
      occurredAt: row.occurred_at,
      correlationId: row.metadata.correlationId ?? '',
      causationId: row.metadata.causationId ?? null,
      traceparent: row.metadata.traceparent ?? null,
      data,
    };
  }

  /** A text body as stored, or, when an upcaster starts at its version, parsed, upcast and written back. */
  private upcastText(row: EventRow): { schemaVersion: number; data: unknown } {
    if (!isUpcast(this.upcasters, row.type, row.schema_version)) return { schemaVersion: row.schema_version, data: row.data };
    const upcasted = upcast(this.upcasters, { type: row.type, schemaVersion: row.schema_version, data: JSON.parse(row.data as string) });
    return { schemaVersion: upcasted.schemaVersion, data: JSON.stringify(upcasted.data) };
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  return e.code === UNIQUE_VIOLATION || e.driverError?.code === UNIQUE_VIOLATION;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
