import type { EventEnvelope } from '@seed/contracts';

/** An event as read back from the store: the public envelope plus its place in the log. */
export interface StoredEvent<TData = unknown> extends EventEnvelope<TData> {
  globalPosition: string;
  /** Postgres xid8 of the appending transaction, as a decimal string. */
  transactionId: string;
}

export interface EventRow {
  global_position: string;
  transaction_id: string;
  event_id: string;
  stream_id: string;
  stream_position: number;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: { correlationId?: string; causationId?: string | null; traceparent?: string | null };
  /** ISO 8601 in UTC with milliseconds, as `Date.toISOString()` writes it (see OCCURRED_AT_ISO). */
  occurred_at: string;
}

/**
 * `occurred_at` formatted by PostgreSQL as `Date.toISOString()` would (the log's times are written
 * from such strings, so milliseconds are all they hold). Every follower reads every event of its
 * log: parsing each time into a `Date` only to print it back cost more than the formatting here
 * (docs/adr/0036-followers-read-only-what-they-handle.md).
 */
export const OCCURRED_AT_ISO = `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An event's identity and place in the log: what a reader needs even of an event it passes over. */
export const EVENT_PLACE_COLUMNS = 'global_position, transaction_id::text AS transaction_id, event_id, stream_id, stream_position, type, schema_version';

export const EVENT_COLUMNS = `${EVENT_PLACE_COLUMNS}, data, metadata, ${OCCURRED_AT_ISO} AS occurred_at`;
