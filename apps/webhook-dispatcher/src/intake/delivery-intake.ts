import { Inject, Injectable } from '@nestjs/common';
import { v5 as uuidv5, validate as uuidValidate } from 'uuid';
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
import type { DirectDelivery, DirectOffer } from '../sending/direct-delivery';
import { originOf, type ClaimedDelivery, type HoldOffer } from '../sending/claimed-delivery';
import { DeliveryStore } from '../sending/delivery-store';
import { ProcessedEvents } from '../sending/processed-events';

/**
 * A delivery's id is its status event's id (one delivery per event; a UUID derived from it when the
 * id is not a UUID): the same id (the `x-seed-delivery-id` the customer may deduplicate on) when a
 * redelivered event is sent again, whichever way it went the first time. sms-batch's event ids are
 * time-ordered (UUIDv7), so the deliveries' keys and streams grow at their index's end, as
 * freshly made UUIDv7s did.
 */
const DELIVERY_ID_NAMESPACE = '6f1d6c5e-2f55-4c0b-9a51-3d8f2b7e4a10';
export const deliveryIdOf = (eventId: string): string => (uuidValidate(eventId) ? eventId.toLowerCase() : uuidv5(eventId, DELIVERY_ID_NAMESPACE));

/** First attempts the sender takes without a row (`accept`'s `direct`): its offer, and where the taken ones go. */
export interface DirectHandOver {
  offer: DirectOffer;
  taken: DirectDelivery[];
}

/**
 * Turns sms-batch events into deliveries, inside the caller's transaction: each status change
 * with a target (the message's dlrCallbackUrl, else the account's default URL) becomes a scheduled
 * delivery. The events handled are recorded in `processed_messages` in the same transaction, so a
 * redelivered event schedules nothing twice. An account that gets its first delivery and has no
 * signing secret yet is given one (the customer reads it by setting the URL or rotating).
 */
@Injectable()
export class DeliveryIntake {
  private readonly processed: ProcessedEvents;

  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly accounts: AccountWebhooksStore,
    private readonly sealer: SecretSealer,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.processed = new ProcessedEvents(quoteSchema(schema.name));
  }

  /**
   * Returns the number of deliveries scheduled. Those the offer takes are leased to the sender and
   * added to `held`, for it to send once the caller's transaction has committed. With `direct`,
   * first attempts the sender's direct offer takes are not written at all: they go to
   * `direct.taken`, for the sender to try before the events' offsets are committed (sendDirect).
   * Only a message's one change in the batch can go so, and only when none of its changes is
   * pending: order per message holds because whatever comes later waits behind the written rows.
   */
  async accept(
    db: SqlExecutor,
    events: readonly SourceEvent[],
    now: Date = new Date(),
    offer?: HoldOffer,
    held?: ClaimedDelivery[],
    direct?: DirectHandOver,
    read?: TargetedChanges,
  ): Promise<number> {
    const { targeted, accounts } = read ?? (await this.targeted(db, events));
    if (targeted.length === 0) return 0;
    const at = now.toISOString();
    const once = new Set<string>();
    const usable = targeted.filter(({ event, change, url }) => {
      // A repeat of an event in the batch, or of one this replica posted directly of late (the
      // relay publishes at least once), is dropped here; processed_messages catches the others.
      if (once.has(event.eventId) || direct?.offer.handedOver(event.eventId)) return false;
      once.add(event.eventId);
      if (!callbackUrlProblem(url)) return true;
      // sms-batch accepts only http(s) URLs; anything else is logged (without the URL's query) and not sent.
      this.logger.warn({ umid: change.umid, eventId: event.eventId }, 'status change with an unusable callback URL: not delivered');
      return false;
    });
    const goDirect = direct ? await this.takeDirect(db, usable, accounts, direct, at) : new Set<string>();
    const rest = usable.filter((c) => !goDirect.has(c.event.eventId));
    if (rest.length === 0) return 0;
    const fresh = await this.processed.record(db, rest.map((c) => c.event.eventId));
    // `fresh` holds each new id once: an event repeated within the batch is taken once, too.
    const todo = rest.filter((c) => fresh.delete(c.event.eventId));
    if (todo.length === 0) return 0;

    const scheduled: DeliveryScheduledV1[] = [];
    const traces = new Map<string, string | null>();
    const needSecret = new Set<string>();
    for (const targetedChange of todo) {
      needSecret.add(targetedChange.change.accountId);
      const delivery = scheduledOf(targetedChange, at);
      traces.set(delivery.deliveryId, targetedChange.event.traceparent ?? null);
      scheduled.push(delivery);
    }
    const withoutSecret = [...needSecret].filter((id) => accounts.get(id)?.state.sealedSecret === null).sort();
    // Locked with a row made for a new account: two intakes of its first changes take turns, the
    // second reading the secret the first gave it (docs/adr/0105-first-append-of-a-new-stream.md).
    const locked = withoutSecret.length > 0 ? await this.accounts.load(db, withoutSecret, 'creating') : new Map();
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

  /**
   * The status changes among `events` that have somewhere to go, and their accounts, read without
   * a lock: so that intake transactions of several partitions run side by side (an account that
   * needs its first secret is locked, and read again, in `accept`), and so that a caller may read
   * them before any transaction and open none when nothing is targeted. Only status changes with
   * somewhere to go are recorded: most messages of an installation without webhooks would
   * otherwise cost a processed row each, forever, for nothing.
   */
  async targeted(db: SqlExecutor, events: readonly SourceEvent[]): Promise<TargetedChanges> {
    const changes = events.map((e) => ({ event: e, change: statusChangeOf(e) })).filter((c): c is { event: SourceEvent; change: StatusChange } => c.change !== null);
    if (changes.length === 0) return { targeted: [], accounts: new Map() };
    const accountIds = [...new Set(changes.map((c) => c.change.accountId))].sort();
    const accounts = await this.accounts.load(db, accountIds, false);
    const targeted = changes.flatMap((c) => {
      const url = c.change.dlrCallbackUrl ?? accounts.get(c.change.accountId)?.state.dlrCallbackUrl ?? null;
      return url === null ? [] : [{ ...c, url }];
    });
    return { targeted, accounts };
  }

  /**
   * The status changes that go to the sender without a row, all of a message's changes in the
   * batch or none: of an account with a signing secret, none handled before (a redelivered event
   * that was written down is not sent again from here), no pending change of the message, and
   * every one taken by the offer. The sender sends a message's changes one after the other.
   */
  private async takeDirect(
    db: SqlExecutor,
    changes: readonly TargetedChange[],
    accounts: Awaited<ReturnType<AccountWebhooksStore['load']>>,
    direct: DirectHandOver,
    at: string,
  ): Promise<Set<string>> {
    // Endpoints the sender would take nothing of (none of its slots, breaker not clean) are left
    // out before anything is read: an outage's backlog costs no look-ups here.
    const candidates = changes.filter((c) => (accounts.get(c.change.accountId)?.state.sealedSecret ?? null) !== null && direct.offer.open(originOf(c.url)));
    if (candidates.length === 0) return new Set();
    const [handled, pending] = await Promise.all([
      this.processed.among(db, candidates.map((c) => c.event.eventId)),
      this.deliveries.pendingMessages(db, candidates.map((c) => c.change.umid)),
    ]);
    const perMessage = new Map<string, number>();
    for (const c of changes) perMessage.set(c.change.umid, (perMessage.get(c.change.umid) ?? 0) + 1);
    const byMessage = new Map<string, TargetedChange[]>();
    for (const c of candidates) byMessage.set(c.change.umid, [...(byMessage.get(c.change.umid) ?? []), c]);
    const taken = new Set<string>();
    for (const [umid, ofMessage] of byMessage) {
      if (pending.has(umid) || ofMessage.some((c) => handled.has(c.event.eventId))) continue;
      // Every change of the message in the batch, or none (a later one scheduled due while an earlier one is in flight would overtake it).
      if (ofMessage.length !== perMessage.get(umid)) continue;
      const origins = ofMessage.map((c) => originOf(c.url));
      if (!origins.every((origin) => direct.offer.take(origin))) continue;
      ofMessage.sort((a, b) => a.change.sequence - b.change.sequence);
      ofMessage.forEach((c, i) => {
        taken.add(c.event.eventId);
        direct.taken.push({ scheduled: scheduledOf(c, at), origin: origins[i] as string, traceparent: c.event.traceparent ?? null });
      });
    }
    return taken;
  }
}

interface TargetedChange {
  event: SourceEvent;
  change: StatusChange;
  url: string;
}

/** What `targeted` read: the changes with a URL, and the accounts of all the changes. */
export interface TargetedChanges {
  targeted: TargetedChange[];
  accounts: Awaited<ReturnType<AccountWebhooksStore['load']>>;
}

function scheduledOf({ event, change, url }: TargetedChange, at: string): DeliveryScheduledV1 {
  return {
    deliveryId: deliveryIdOf(event.eventId),
    accountId: change.accountId,
    umid: change.umid,
    sequence: change.sequence,
    url,
    body: JSON.stringify(change.body),
    sourceEventId: event.eventId,
    scheduledAt: at,
  };
}
