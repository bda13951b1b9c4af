import { Injectable } from '@nestjs/common';
import { quoteSchema, type SqlExecutor } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import type { DeliveryToWrite } from './direct-delivery';
import { DeliveryStore } from './delivery-store';
import { ProcessedEvents } from './processed-events';

/**
 * Writes direct deliveries down as if the intake had scheduled them (the sender's WriteDown): the
 * source event recorded as processed, the delivery's events and row, in the caller's transaction.
 */
@Injectable()
export class DirectWriteDown {
  private readonly processed: ProcessedEvents;

  constructor(
    private readonly deliveries: DeliveryStore,
    schema: ServiceSchema,
  ) {
    this.processed = new ProcessedEvents(quoteSchema(schema.name));
  }

  /**
   * An in-flight one is leased to the sender, whatever else its message has pending (it is being
   * sent already); one not started is due as intake would make it. Answers the lease tokens of the
   * in-flight ones written here; an event already recorded as processed was written by another
   * replica, which owns it.
   */
  async writeDown(db: SqlExecutor, deliveries: readonly DeliveryToWrite[], leaseMs: number): Promise<Map<string, string>> {
    if (deliveries.length === 0) return new Map();
    const fresh = await this.processed.record(db, deliveries.map((d) => d.scheduled.sourceEventId));
    const todo = deliveries.filter((d) => fresh.delete(d.scheduled.sourceEventId));
    const traces = new Map(todo.map((d) => [d.scheduled.deliveryId, d.traceparent]));
    const inFlight = new Set(todo.filter((d) => d.inFlight).map((d) => d.scheduled.deliveryId));
    const at = new Date().toISOString();
    const held = await this.deliveries.schedule(
      db,
      todo.map((d) => d.scheduled),
      { correlationId: 'webhook-dispatcher', causationId: null, occurredAt: at },
      { leaseMs, take: () => false },
      traces,
      inFlight,
    );
    return new Map(held.map((h) => [h.deliveryId, h.leaseToken]));
  }

  /** Direct deliveries that succeeded: their source events recorded as handled (RecordSent). */
  async recordSent(db: SqlExecutor, sourceEventIds: readonly string[]): Promise<void> {
    await this.processed.record(db, [...sourceEventIds]);
  }
}
