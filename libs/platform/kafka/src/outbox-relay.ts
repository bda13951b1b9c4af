import { MessageHeader, type EventEnvelope } from '@seed/contracts';
import type { EventHandler, StoredEvent } from '@seed/platform-event-store';
import { SpanKind, spansFor } from '@seed/platform-telemetry';
import { EncodedJson } from './kafka-record';
import type { MessageProducer } from './message-producer';

/** How a service's events are published: by default as they are stored, without the store's own fields. */
export interface PublicShape {
  /** Shapes what leaves the service; returning null keeps an event private. */
  toPublic: (event: StoredEvent) => EventEnvelope | null;
  /**
   * The event types `toPublic` changes (fields removed, or kept private). Events of other types go
   * out as stored (`withoutStoreFields`), their bodies passed on as the log's JSON text, unparsed.
   */
  reshaped: readonly string[];
}

/**
 * Publishes a service's events to its public topic. The event log is the outbox: events are written
 * in the transaction that decided them, and this relay follows the log in order (one replica at a
 * time), keyed by stream id so each entity's events stay in order on one partition. The checkpoint
 * moves only after the broker acknowledged, so delivery is at least once; subscribers dedupe by eventId.
 */
export class OutboxRelay implements EventHandler {
  readonly name: string;
  /**
   * Bodies come as the log's JSON text: most events go out unchanged, and parsing each body only to
   * serialise it again was the relay's largest cost after the broker's (docs/adr/0036-followers-read-only-what-they-handle.md).
   */
  readonly bodies = 'text';

  constructor(
    private readonly producer: MessageProducer,
    private readonly topic: string,
    private readonly shape: PublicShape = { toPublic: withoutStoreFields, reshaped: [] },
  ) {
    this.name = `outbox-relay:${topic}`;
  }

  async handle(events: readonly StoredEvent[]): Promise<void> {
    const published = events.flatMap((event) => {
      const envelope = this.publicJsonOf(event);
      return envelope ? [{ event, envelope }] : [];
    });
    // Each event's publication joins the trace of the request that caused it.
    const spans = spansFor(`${this.topic} publish`, SpanKind.PRODUCER, published.map(({ event }) => event.traceparent), {
      'messaging.system': 'kafka',
      'messaging.destination.name': this.topic,
    });
    const records = published.map(({ event, envelope }, i) => {
      const headers: Record<string, string> = {
        [MessageHeader.MessageId]: event.eventId,
        [MessageHeader.MessageType]: event.type,
        [MessageHeader.CorrelationId]: event.correlationId,
      };
      if (event.causationId) headers[MessageHeader.CausationId] = event.causationId;
      const traceparent = spans.traceparents[i];
      if (traceparent) headers[MessageHeader.Traceparent] = traceparent;
      return { key: event.streamId, value: envelope, headers };
    });
    try {
      await this.producer.send(this.topic, records);
      spans.end();
    } catch (error) {
      spans.end(error);
      throw error;
    }
  }

  /** The event's public envelope as JSON text (its body as stored unless its type is reshaped), or null when it stays private. */
  private publicJsonOf(event: StoredEvent): EncodedJson | null {
    const body = event.data as string;
    if (this.shape.reshaped.includes(event.type)) {
      const envelope = this.shape.toPublic({ ...event, data: JSON.parse(body) });
      return envelope ? new EncodedJson(JSON.stringify(envelope)) : null;
    }
    // withoutStoreFields's envelope, field by field in its order, with the body spliced in as it is.
    return new EncodedJson(
      `{"eventId":${JSON.stringify(event.eventId)},"type":${JSON.stringify(event.type)},"schemaVersion":${event.schemaVersion}` +
        `,"streamId":${JSON.stringify(event.streamId)},"streamPosition":${event.streamPosition},"globalPosition":${JSON.stringify(event.globalPosition)}` +
        `,"occurredAt":${JSON.stringify(event.occurredAt)},"correlationId":${JSON.stringify(event.correlationId)}` +
        `,"causationId":${JSON.stringify(event.causationId)},"traceparent":${JSON.stringify(event.traceparent)},"data":${body}}`,
    );
  }
}

export function withoutStoreFields(event: StoredEvent): EventEnvelope {
  const { transactionId: _transactionId, ...envelope } = event;
  return envelope;
}
