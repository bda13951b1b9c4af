import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { EventStore, EventSubscription, type EventHandler, type SubscriptionOptions } from '@seed/platform-event-store';
import { LOGGER } from './platform.tokens';

/** The types of the events appended, or null when they are not known (wake every follower). */
export type WakeListener = (types: readonly string[] | null) => void;

/**
 * Followers of the service's log (projections, the outbox relay, reactors). Modules register
 * them; they start once migrations ran and stop before the connections close.
 */
@Injectable()
export class SubscriptionRegistry implements BeforeApplicationShutdown {
  private readonly subscriptions: EventSubscription[] = [];
  private readonly wakeListeners: WakeListener[] = [];
  private started = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  register(handler: EventHandler, options?: SubscriptionOptions): EventSubscription {
    const subscription = new EventSubscription(this.dataSource, this.store, handler, this.logger, options);
    this.subscriptions.push(subscription);
    if (this.started) subscription.start();
    return subscription;
  }

  /** The names of the followers registered here (their checkpoints are kept under them). */
  names(): string[] {
    return this.subscriptions.map((s) => s.name);
  }

  startAll(): void {
    this.started = true;
    for (const s of this.subscriptions) s.start();
  }

  /** After a local append: followers read it now instead of at their next poll. */
  wakeAll(): void {
    for (const s of this.subscriptions) s.wake();
    for (const listener of this.wakeListeners) listener(null);
  }

  /** After a local append of events of these types: only the followers that handle one of them. */
  wakeFor(types: readonly string[]): void {
    if (types.length === 0) return;
    for (const s of this.subscriptions) s.wakeFor(types);
    for (const listener of this.wakeListeners) listener(types);
  }

  /** Also told of every local append: followers of this log that run elsewhere (a worker thread). */
  onWake(listener: WakeListener): void {
    this.wakeListeners.push(listener);
  }

  /** Runs every follower until it has nothing left (replay tooling and tests). */
  async catchUpAll(): Promise<void> {
    for (const s of this.subscriptions) await s.catchUp();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.stop()));
  }
}
