import { MessageHeader, type EventEnvelope } from '@seed/contracts';
import type { EventHandler, StoredEvent } from '@seed/platform-event-store';
import { SpanKind, spansFor } from '@seed/platform-telemetry';
import type { MessageProducer } from './message-producer';

/**
 * Publishes a service's events to its public topic. The event log is the outbox: events are written
 * in the transaction that decided them, and this relay follows the log in order (one replica at a
 * time), keyed by stream id so each entity's events stay in order on one partition. The checkpoint
 * moves only after the broker acknowledged, so delivery is at least once; subscribers dedupe by eventId.
 */
export class OutboxRelay implements EventHandler {
  readonly name: string;

  constructor(
    private readonly producer: MessageProducer,
    private readonly topic: string,
    /** Shapes what leaves the service; returning null keeps an event private. */
    private readonly toPublic: (event: StoredEvent) => EventEnvelope | null = withoutStoreFields,
  ) {
    this.name = `outbox-relay:${topic}`;
  }

  async handle(events: readonly StoredEvent[]): Promise<void> {
    const published = events.flatMap((event) => {
      const envelope = this.toPublic(event);
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
}

export function withoutStoreFields(event: StoredEvent): EventEnvelope {
  const { transactionId: _transactionId, ...envelope } = event;
  return envelope;
}
