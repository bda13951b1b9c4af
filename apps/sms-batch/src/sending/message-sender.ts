import type { Logger } from 'pino';
import { FailureStreak } from '@seed/platform-logging';
import { WakeablePause } from '@seed/platform-event-store';
import { withTimeout } from '@seed/platform-kafka';
import { inSpan, onwardTraceparent, SpanKind } from '@seed/platform-telemetry';
import { buildSubmitParts, concatReferenceFor, type RoutingDecision, type SubmitSmPart } from '@seed/sms-batch-domain';
import type { CarrierFleet } from '../carrier/carrier-fleet';
import { wasNotSent } from '../carrier/submit-outcome';
import type { SmppCarrierPool } from '../carrier/smpp-carrier-pool';
import { alternativeExists, carrierFor, withCarrierNumbering } from './carrier-choice';
import { handoffGate } from './handoff-gate';
import type { MessageLifecycleWriter } from './message-lifecycle.writer';
import { submitPart } from './part-submission';
import type { HeldMessage, OutboundMessage, OutboundQueueRepository } from './outbound-queue.repository';
import type { SenderSettings } from './sender-settings';

export type { SenderSettings } from './sender-settings';

type Outcome = 'recorded' | 'released';

/** A part is not submitted this close to the lease's end (at most a fifth of it), so no other sender can overlap. */
const LEASE_MARGIN_MS = 5000;
/** How often a stopping sender says what it still waits for. */
const STOP_PROGRESS_MS = 2000;
const OUT_OF_TIME = 'out of SEND_STOP_GRACE_MS';
/** How soon a message whose route has no bound carrier is looked at again. */
const NO_CARRIER_RETRY_MS = 1000;
/** How soon a message held back by unknown opt-outs is tried again. */
const OPT_OUTS_UNKNOWN_RETRY_MS = 2000;

/**
 * Hands due messages to carriers: keeps up to `claimSize` claimed messages in progress, routes each
 * (the first matching route, a carrier by its mode), submits every part within that carrier's
 * window and cap, and records each result (routed and sent with its carrier ids, refused, expired,
 * no route, opted out) through the lifecycle writer. A carrier that cannot take a message now (no session,
 * throttling, a temporary error, its session dropped before answering) passes it to the next
 * carrier of its route, same umid; with none left, it goes back to the queue with backoff. A
 * message a carrier accepted any part of stays with that carrier. On stop, nothing new is claimed;
 * submits already on the wire finish and are recorded; claimed rows not yet submitted are released.
 * A message is sent twice only if the process dies between its submit and the record.
 */
export class MessageSender {
  private readonly claimFailures: FailureStreak;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly pauser = new WakeablePause();
  /** Results handed to the writer and not yet committed; sending does not wait for them. */
  private readonly recording = new Set<Promise<void>>();
  private inFlight = 0;
  /**
   * umids in progress here, or whose result is not committed yet. A message held longer than its
   * lease (waiting for a window slot, or for the writer) is claimed again by this very sender,
   * since the claim only sees the expired lease; it must not be sent twice.
   */
  private readonly active = new Set<string>();
  private readonly unrecorded = new Set<string>();
  /** Claimed but not submitted because the sender is stopping: handed back on the way out. */
  private readonly released: HeldMessage[] = [];

  constructor(
    private readonly queue: OutboundQueueRepository,
    private readonly fleet: CarrierFleet,
    private readonly writer: MessageLifecycleWriter,
    private readonly logger: Logger,
    private readonly settings: SenderSettings,
  ) {
    this.claimFailures = new FailureStreak(logger, 'claiming messages failed; retrying');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops claiming, lets the submits on the wire finish and records their results. Waits at most
   * `stopGraceMs` for them, saying every few seconds what it waits for; past that it stops anyway,
   * and what it still held comes back after its lease (as after a kill).
   */
  async stop(): Promise<void> {
    this.running = false;
    this.pauser.wake();
    const startedAt = Date.now();
    const waiting = () => ({ waitedMs: Date.now() - startedAt, inFlight: this.inFlight, resultsNotRecorded: this.recording.size });
    const progress = setInterval(() => this.logger.warn(waiting(), 'sender still stopping: waiting for submits on the wire and their records'), STOP_PROGRESS_MS);
    try {
      await withTimeout(this.finishing(), this.settings.stopGraceMs, OUT_OF_TIME);
    } catch (error) {
      if ((error as Error).message !== OUT_OF_TIME) throw error;
      this.logger.error(waiting(), 'sender did not stop within SEND_STOP_GRACE_MS; stopping anyway: the messages it still holds are sent again after their lease');
    } finally {
      clearInterval(progress);
    }
  }

  /** The end of the claim loop, then every result it handed to the writer, committed. */
  private async finishing(): Promise<void> {
    await this.loop;
    await this.writer.drain();
    await Promise.allSettled([...this.recording]);
  }

  /** New messages were queued: look now instead of at the next poll. */
  wake(): void {
    this.pauser.wake();
  }

  /**
   * A pipeline, not rounds: as soon as a quarter of the in-flight room is free, more messages are
   * claimed, so the carrier window never drains while the slowest submit of a round finishes.
   */
  private async run(): Promise<void> {
    const room = this.settings.claimSize;
    while (this.running) {
      try {
        if (!this.fleet.anyBound()) {
          // No carrier: nothing can be sent, but what expires meanwhile still ends undelivered.
          const expired = await this.queue.claim(this.settings.claimSize, this.settings.leaseMs, true);
          this.claimFailures.succeeded();
          for (const message of expired) if (!this.active.has(message.umid)) void this.track(message, Date.now());
          await this.fleet.waitUntilAnyBound(this.settings.idleMs * 10);
          continue;
        }
        // Messages whose result is not committed yet count too: they are what a SIGKILL would send
        // twice, so that number stays within SEND_CLAIM_SIZE however far the writer falls behind.
        const free = room - this.inFlight - this.unrecorded.size;
        if (free < Math.max(1, room / 4)) {
          await this.pauser.wait(this.settings.idleMs);
          continue;
        }
        const claimedAt = Date.now();
        const claimed = await this.queue.claim(free, this.settings.leaseMs, false, this.fleet.localCarriers());
        this.claimFailures.succeeded();
        if (claimed.length === 0) {
          await this.pauser.wait(this.settings.idleMs);
          continue;
        }
        for (const message of claimed) if (!this.active.has(message.umid) && !this.unrecorded.has(message.umid)) void this.track(message, claimedAt);
      } catch (error) {
        this.claimFailures.failed(error);
        await this.pauser.wait(1000);
      }
    }
    while (this.inFlight > 0) await this.pauser.wait(this.settings.idleMs);
    try {
      if (this.released.length > 0) await this.queue.release(this.released.splice(0), 0, false);
    } catch (error) {
      // Their leases run out on their own; the stop goes on so the writer still drains.
      this.logger.error({ err: error }, 'claimed messages not handed back');
    }
  }

  private async track(message: OutboundMessage, claimedAt: number): Promise<void> {
    this.inFlight++;
    this.active.add(message.umid);
    try {
      if ((await this.send(message, claimedAt)) === 'released') this.released.push(message);
    } catch (error) {
      // Left leased: it comes back when the lease ends.
      this.logger.error({ err: error, umid: message.umid }, 'sending a message failed');
    } finally {
      this.inFlight--;
      this.active.delete(message.umid);
      this.pauser.wake();
    }
  }

  /**
   * Hands a result to the writer without waiting for its commit, so the next round's submits
   * overlap this round's writes. If the record fails, the row keeps its lease and comes back
   * after it: the message is then sent again (it was on the wire when the failure happened).
   */
  private record(item: Parameters<MessageLifecycleWriter['record']>[0]): void {
    // A failover sent nothing, and its message is due again at once: a claim must not skip it
    // while the decision is still being written (it would sit leased by this sender, unsent).
    const umid = 'umid' in item && item.command.type !== 'RecordFailover' ? item.umid : undefined;
    if (umid) this.unrecorded.add(umid);
    const pending = this.writer
      .record(item)
      .catch((error: unknown) => this.logger.error({ err: error, umid }, 'send result not recorded'))
      .finally(() => {
        this.recording.delete(pending);
        if (umid) this.unrecorded.delete(umid);
      });
    this.recording.add(pending);
  }

  private async send(message: OutboundMessage, claimedAt: number): Promise<Outcome> {
    const now = new Date().toISOString();
    const held = { umid: message.umid, leaseToken: message.leaseToken, traceparent: message.traceparent };
    const gate = handoffGate(message, now, this.settings.optedOut);
    if (gate === 'opt-outs-unknown') await this.queue.release([message], OPT_OUTS_UNKNOWN_RETRY_MS, false);
    else if (gate !== 'open') this.record({ ...held, command: { type: gate === 'expired' ? 'ExpireBeforeHandoff' : 'RecordOptedOut', at: now } });
    if (gate !== 'open') return 'recorded';
    if (!this.running) return 'released';
    const selection = carrierFor(this.fleet, message);
    if (selection.kind !== 'carrier') this.logger.debug({ umid: message.umid, selection }, 'message not routed to a carrier now');
    switch (selection.kind) {
      case 'unconfigured':
        await this.queue.release([message], NO_CARRIER_RETRY_MS, false);
        return 'recorded';
      case 'no-route':
        this.record({ ...held, command: { type: 'RecordNoRoute', detail: selection.detail, at: now } });
        return 'recorded';
      case 'wait':
        // Every carrier of the route failed it: start over from the first, after a backoff.
        if (selection.allTried) await this.queue.failOver(message, [], this.backoff(message));
        else await this.queue.release([message], NO_CARRIER_RETRY_MS, false);
        return 'recorded';
      case 'carrier':
        break;
    }
    const pool = this.fleet.boundPool(selection.carrierId);
    if (!pool && message.locked) {
      await this.queue.release([message], NO_CARRIER_RETRY_MS, false);
      return 'recorded';
    }
    if (!pool) {
      await this.queue.pin(message, selection.carrierId);
      return 'recorded';
    }
    const routing: RoutingDecision = { routeId: selection.routeId, carrierId: selection.carrierId, attempt: message.tried.length + 1, price: selection.price };
    let text: string;
    try {
      text = this.settings.textOf(message.text);
    } catch (error) {
      // A sealed text whose key was removed from the keyring can never be sent.
      this.logger.error({ umid: message.umid, err: error }, 'sealed text cannot be opened; message ends undelivered');
      this.record({ ...held, command: { type: 'RecordSubmissionFailure', errorCode: 'SEALED_TEXT', errorMessage: (error as Error).message, at: now } });
      return 'recorded';
    }
    const parts = withCarrierNumbering(
      buildSubmitParts(
        { destination: message.destination, source: message.source, text, encoding: message.encoding, concatReference: concatReferenceFor(message.umid) },
        this.settings.defaultSource,
      ),
      this.fleet.carrier(selection.carrierId),
    );
    // The hand-off joins the trace of the request that queued the message.
    const attributes = { 'messaging.system': 'smpp', 'messaging.operation': 'send', 'sms.parts': parts.length, 'sms.carrier': selection.carrierId };
    return inSpan('submit_sm send', { kind: SpanKind.CLIENT, parent: message.traceparent, attributes }, () => this.submit(message, pool, routing, parts, claimedAt));
  }

  private async submit(message: OutboundMessage, pool: SmppCarrierPool, routing: RoutingDecision, parts: SubmitSmPart[], claimedAt: number): Promise<Outcome> {
    const traceparent = onwardTraceparent(message.traceparent);
    // Parts go out only while this sender still holds the message: not after a stop began, nor so
    // close to the end of the lease that another sender may claim it meanwhile.
    const holdUntil = claimedAt + this.settings.leaseMs - Math.min(LEASE_MARGIN_MS, this.settings.leaseMs / 5);
    const mayStillSend = () => this.running && Date.now() < holdUntil;
    const moveOn = () => parts.length === 1 && !message.locked && alternativeExists(this.fleet, message, [...message.tried, routing.carrierId]);
    const how = { mayStillSend, moveOn, noteRefusal: (carrierId: string, status: number) => this.fleet.noteRefusal(carrierId, status), retryBaseMs: this.settings.retryBaseMs };
    const outcomes = await Promise.all(parts.map((part) => submitPart(pool, part, how)));
    if (outcomes.some(wasNotSent) && outcomes.every((o) => !o.ok)) return 'released';
    const at = new Date().toISOString();
    const held = { umid: message.umid, leaseToken: message.leaseToken, traceparent };
    const noneAccepted = outcomes.every((o) => !o.ok);
    const refused = outcomes.find((o) => !o.ok && !o.temporary);
    if (refused && !refused.ok) {
      const errorCode = `0x${refused.status.toString(16).toUpperCase().padStart(8, '0')}`;
      if (noneAccepted && !message.locked && this.fleet.carrier(routing.carrierId)?.rerouteOnErrors.has(errorCode) && (await this.failOver(message, routing, refused.detail))) return 'recorded';
      this.record({ ...held, command: { type: 'RecordSubmissionFailure', errorCode, errorMessage: refused.detail, at, routing } });
      return 'recorded';
    }
    const retry = outcomes.find((o) => !o.ok);
    if (retry && !retry.ok) {
      // Parts the carrier accepted tie the message to it: its other parts are retried there.
      if (noneAccepted && !message.locked && (await this.failOver(message, routing, retry.detail))) return 'recorded';
      const delay = this.backoff(message);
      this.logger.debug({ umid: message.umid, detail: retry.detail, delay }, 'temporary refusal; will retry');
      await this.queue.release([message], delay, true, noneAccepted ? null : routing.carrierId);
      return 'recorded';
    }
    const carrierMessageIds = outcomes.map((o) => (o.ok ? o.messageId : ''));
    this.record({ ...held, command: { type: 'RecordSubmission', carrierMessageIds, at, routing } });
    return 'recorded';
  }

  /**
   * Passes a message its carrier could not take to the next carrier of its route, when another can
   * take it now; false (nothing done) when none can, and it waits for this one instead.
   */
  private async failOver(message: OutboundMessage, routing: RoutingDecision, detail: string): Promise<boolean> {
    const tried = [...message.tried, routing.carrierId];
    if (!alternativeExists(this.fleet, message, tried)) return false;
    // Not fenced by the lease: the decision stands even if another sender claims the message next.
    this.record({ umid: message.umid, traceparent: message.traceparent, command: { type: 'RecordFailover', routing, detail, at: new Date().toISOString() } });
    await this.queue.failOver(message, tried, 0);
    return true;
  }

  private backoff(message: OutboundMessage): number {
    return Math.min(this.settings.retryBaseMs * 2 ** Math.max(0, message.attempts - 1), this.settings.retryMaxMs);
  }
}
