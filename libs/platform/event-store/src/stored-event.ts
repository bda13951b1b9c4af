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
  occurred_at: Date | string;
}

export const EVENT_COLUMNS =
  'global_position, transaction_id::text AS transaction_id, event_id, stream_id, stream_position, type, schema_version, data, metadata, occurred_at';
