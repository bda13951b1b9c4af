import { Inject, Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import type { Logger } from 'pino';
import { quoteSchema, type SqlExecutor } from '@seed/platform-event-store';
import { LOGGER, ServiceSchema } from '@seed/platform-nest';
import {
  callbackUrlProblem,
  decideAccountWebhook,
  statusChangeOf,
  type DeliveryScheduledV1,
  type SourceEvent,
  type StatusChange,
} from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, newSigningSecret, SecretSealer } from '../accounts/account-webhooks.store';
import { DeliveryStore, type ClaimedDelivery, type HoldOffer } from '../sending/delivery-store';

const CONSUMER = 'sms-batch-events';

/**
 * Turns sms-batch events into deliveries, inside the caller's transaction: each status change
 * with a target (the message's dlrCallbackUrl, else the account's default URL) becomes a scheduled
 * delivery. The events handled are recorded in `processed_messages` in the same transaction, so a
 * redelivered event schedules nothing twice. An account that gets its first delivery and has no
 * signing secret yet is given one (the customer reads it by setting the URL or rotating).
 */
@Injectable()
export class DeliveryIntake {
  private readonly s: string;

  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly accounts: AccountWebhooksStore,
    private readonly sealer: SecretSealer,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /**
   * Returns the number of deliveries scheduled. Those the offer takes are leased to the sender and
   * added to `held`, for it to send once the caller's transaction has committed.
   */
  async accept(db: SqlExecutor, events: readonly SourceEvent[], now: Date = new Date(), offer?: HoldOffer, held?: ClaimedDelivery[]): Promise<number> {
    const changes = events.map((e) => ({ event: e, change: statusChangeOf(e) })).filter((c): c is { event: SourceEvent; change: StatusChange } => c.change !== null);
    if (changes.length === 0) return 0;

    const accountIds = [...new Set(changes.map((c) => c.change.accountId))].sort();
    // Read without a lock, so that intake transactions of several partitions run side by side;
    // only an account that needs its first secret is locked (and read again) below.
    const accounts = await this.accounts.load(db, accountIds, false);
    // Only status changes with somewhere to go are recorded: most messages of an installation
    // without webhooks would otherwise cost a processed row each, forever, for nothing.
    const targeted = changes.flatMap((c) => {
      const url = c.change.dlrCallbackUrl ?? accounts.get(c.change.accountId)?.state.dlrCallbackUrl ?? null;
      return url === null ? [] : [{ ...c, url }];
    });
    if (targeted.length === 0) return 0;
    const fresh = await this.recordProcessed(db, targeted.map((c) => c.event.eventId));
    // `fresh` holds each new id once: an event repeated within the batch is taken once, too.
    const todo = targeted.filter((c) => fresh.delete(c.event.eventId));
    if (todo.length === 0) return 0;

    const at = now.toISOString();
    const scheduled: DeliveryScheduledV1[] = [];
    const traces = new Map<string, string | null>();
    const needSecret = new Set<string>();
    for (const { event, change, url } of todo) {
      if (callbackUrlProblem(url)) {
        // sms-batch accepts only http(s) URLs; anything else is logged (without the URL's query) and not sent.
        this.logger.warn({ umid: change.umid, eventId: event.eventId }, 'status change with an unusable callback URL: not delivered');
        continue;
      }
      needSecret.add(change.accountId);
      const deliveryId = uuidv7();
      traces.set(deliveryId, event.traceparent ?? null);
      scheduled.push({
        deliveryId,
        accountId: change.accountId,
        umid: change.umid,
        sequence: change.sequence,
        url,
        body: JSON.stringify(change.body),
        sourceEventId: event.eventId,
        scheduledAt: at,
      });
    }
    const withoutSecret = [...needSecret].filter((id) => accounts.get(id)?.state.sealedSecret === null).sort();
    const locked = withoutSecret.length > 0 ? await this.accounts.load(db, withoutSecret, true) : new Map();
    for (const accountId of withoutSecret) {
      const loaded = locked.get(accountId);
      if (!loaded || loaded.state.sealedSecret !== null) continue;
      const events = decideAccountWebhook({ type: 'EnsureSecret', accountId, newSealedSecret: this.sealer.seal(newSigningSecret()), at }, loaded.state);
      await this.accounts.apply(db, accountId, loaded, events, { correlationId: 'webhook-dispatcher', causationId: null, occurredAt: at });
    }
    const taken = await this.deliveries.schedule(db, scheduled, { correlationId: 'webhook-dispatcher', causationId: null, occurredAt: at }, offer, traces);
    held?.push(...taken);
    return scheduled.length;
  }

  private async recordProcessed(db: SqlExecutor, eventIds: string[]): Promise<Set<string>> {
    const rows: { message_id: string }[] = await db.query(
      `INSERT INTO ${this.s}.processed_messages (consumer, message_id, result)
       SELECT $1, id, NULL FROM unnest($2::text[]) AS id
       ON CONFLICT (consumer, message_id) DO NOTHING RETURNING message_id`,
      [CONSUMER, [...new Set(eventIds)]],
    );
    return new Set(rows.map((r) => r.message_id));
  }
}
