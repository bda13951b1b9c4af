import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStore, quoteSchema } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { DeadLetters } from './dead-letters';
import { DeliveryLeases } from './delivery-leases';
import { DeliveryOutcomes } from './delivery-outcomes';
import { DeliveryScheduling } from './delivery-scheduling';
import { MessageOrder } from './message-order';

export type { DecideOptions, Decided } from './delivery-outcomes';
export type { BreakerReading } from './folds-and-breakers.sql';

/**
 * Deliveries: their events (`webhook-delivery-<id>` streams) and their fold in `deliveries`,
 * which is both the admin API's read model and the sender's queue, and the endpoints' shared state
 * (`delivery_endpoints`: breaker and sending slots). This is the queue as the rest of the service
 * sees it, one injectable over its parts: scheduling, message order, leases, outcomes and dead
 * letters. Every write handles many deliveries in one transaction and one bulk statement per
 * table. The queue's scans (claims, the pending changes of messages) are planned on each call
 * (PLAN_EACH_CALL): their pending rows go from none to thousands within seconds.
 */
@Injectable()
export class DeliveryStore {
  private readonly scheduling: DeliveryScheduling;
  private readonly order: MessageOrder;
  private readonly leases: DeliveryLeases;
  private readonly outcomes: DeliveryOutcomes;
  private readonly dead: DeadLetters;

  constructor(dataSource: DataSource, store: EventStore, schema: ServiceSchema) {
    const s = quoteSchema(schema.name);
    this.scheduling = new DeliveryScheduling(store, s);
    this.order = new MessageOrder(dataSource, s);
    this.leases = new DeliveryLeases(dataSource, s);
    this.outcomes = new DeliveryOutcomes(dataSource, store, this.order, s);
    this.dead = new DeadLetters(dataSource, this.outcomes, s);
  }

  readonly schedule: DeliveryScheduling['schedule'] = (...args) => this.scheduling.schedule(...args);
  readonly pendingMessages: DeliveryScheduling['pendingMessages'] = (...args) => this.scheduling.pendingMessages(...args);
  readonly releaseStranded: MessageOrder['releaseStranded'] = (...args) => this.order.releaseStranded(...args);
  readonly claim: DeliveryLeases['claim'] = (...args) => this.leases.claim(...args);
  readonly claimFor: DeliveryLeases['claimFor'] = (...args) => this.leases.claimFor(...args);
  readonly release: DeliveryLeases['release'] = (...args) => this.leases.release(...args);
  readonly releaseSlots: DeliveryLeases['releaseSlots'] = (...args) => this.leases.releaseSlots(...args);
  readonly decide: DeliveryOutcomes['decide'] = (...args) => this.outcomes.decide(...args);
  readonly expireHeldBack: DeadLetters['expireHeldBack'] = (...args) => this.dead.expireHeldBack(...args);
  readonly deadLetters: DeadLetters['deadLetters'] = (...args) => this.dead.deadLetters(...args);
  readonly deadLetterIds: DeadLetters['deadLetterIds'] = (...args) => this.dead.deadLetterIds(...args);
}
