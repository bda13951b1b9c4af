/**
 * The one envelope every domain event carries, in the event store and on every Kafka event topic.
 * Outside subscribers rely on these field names; see docs/events.md.
 */
export interface EventEnvelope<TData = unknown, TType extends string = string> {
  eventId: string;
  type: TType;
  schemaVersion: number;
  /** `<aggregate>-<id>`, for example `sms-message-<umid>`; also the Kafka message key. */
  streamId: string;
  /** 1-based position of the event in its stream. */
  streamPosition: number;
  /** Position in the owning service's whole log (a decimal string: it is a Postgres bigint). */
  globalPosition?: string;
  occurredAt: string;
  correlationId: string;
  causationId: string | null;
  traceparent: string | null;
  data: TData;
}

/** What a decider returns: an event without the bookkeeping the store adds. */
export interface NewEvent<TData = unknown, TType extends string = string> {
  type: TType;
  schemaVersion: number;
  data: TData;
}
