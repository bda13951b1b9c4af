import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { currentCorrelation } from '@seed/platform-logging';
import { ConcurrencyError, EventStore, isPermanentDatabaseError, quoteSchema, rowsOf, type SqlExecutor } from '@seed/platform-event-store';
import { LOGGER, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import {
  carrierIdKey,
  carrierIdKeys,
  carrierScopedKey,
  decideMessage,
  evolveMessage,
  initialMessageState,
  ReceiptBeforeSubmissionError,
  type MessageCommand,
  type MessageLifecycleEvent,
  type MessageState,
} from '@seed/sms-batch-domain';
import { messageStreamId, type CarrierReceipt, type MessageSentV1 } from '@seed/sms-batch-contracts';
import { countLifecycleEvents } from './message-lifecycle.metrics';

/**
 * A decision to record: about a known message, or a receipt whose message is found by carrier id.
 * The sender's results carry the fencing token of the claim they come from (see `fencedOff`).
 */
export type LifecycleItem =
  | { umid: string; command: Exclude<MessageCommand, { type: 'RecordReceipt' }>; leaseToken?: string; traceparent?: string | null }
  | { receipt: CarrierReceipt };

interface Pending {
  item: LifecycleItem;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Items waiting for a flush, and the flush in progress (at most one per lane). */
interface Lane {
  queue: Pending[];
  flushing: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;
}

// Small, frequent transactions: a receipt is acknowledged to the carrier only after its flush
// commits, so the flush time bounds how fast the carrier's receipt window turns over.
const FLUSH_EVERY_MS = 2;
const MAX_ITEMS_PER_FLUSH = 250;
const MAX_CONFLICT_RETRIES = 5;
/** About a minute of backoff: a database restart, not a bug. */
const MAX_TRANSIENT_RETRIES = 16;
const MAX_CACHED_STATES = 100_000;
const MAX_REMEMBERED_CARRIER_IDS = 200_000;

/** A message's folded state, and the trace its events carry on (the submission's, once sent). */
type CachedState = { version: number; state: MessageState; traceparent: string | null };
/** What a committed flush leaves to remember: folded states, and the carrier ids it recorded. */
type Committed = { states: [string, CachedState][]; sent: { key: string; umid: string }[]; types: string[]; events: MessageLifecycleEvent[] };


/**
 * Records what happens to messages after acceptance (sent, refused, expired, receipts) in their
 * streams. Items from the sender and from receipts are gathered for a few milliseconds and decided
 * in one transaction: read the streams, fold, decide, append with expected versions, and keep
 * carrier ids, the outbound queue and parked receipts in step — thousands of messages a second
 * without a transaction each. A promise per item resolves once its decision is committed.
 *
 * Two lanes flush side by side, each one transaction at a time. Receipts for submissions this
 * writer has committed take the receipts lane: they are acknowledged to the carrier only after
 * their commit, and the carrier's window of unanswered receipts turns over no faster than that, so
 * they must not wait behind a flush of a few hundred submissions. Everything else — submissions,
 * and receipts whose submission is unknown here or not committed yet — takes the main lane, where
 * a receipt is matched, or parked, in order with the submissions before it. The lanes seldom touch
 * one stream; when they do, the expected-version append refuses one and it retries.
 */
@Injectable()
export class MessageLifecycleWriter {
  private readonly s: string;
  private readonly main: Lane = { queue: [], flushing: undefined, timer: undefined };
  private readonly receipts: Lane = { queue: [], flushing: undefined, timer: undefined };
  /**
   * Folded state of messages between their submission and their receipt, so the receipt's
   * decision needs no second read of the stream. Only ever a shortcut: the append's expected
   * version still guards, and a conflict empties it.
   */
  private readonly cache = new Map<string, CachedState>();
  /**
   * Carrier id (normalised) -> umid of the submissions this writer recorded, so that their receipts
   * need no lookup in carrier_ids: a flush of receipts is then only the append. The table stays
   * the record (other replicas, restarts, ids seen only in another form); a later message that
   * gets the same id replaces the entry, as the latest one wins there too.
   */
  private readonly carrierIds = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly subscriptions: SubscriptionRegistry,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.s = quoteSchema(schema.name);
  }

  record(item: LifecycleItem): Promise<void> {
    const lane = 'receipt' in item && this.knowsCarrierId(item.receipt) ? this.receipts : this.main;
    return new Promise((resolve, reject) => {
      lane.queue.push({ item, resolve, reject });
      if (lane.queue.length >= MAX_ITEMS_PER_FLUSH) void this.flush(lane);
      else lane.timer ??= setTimeout(() => void this.flush(lane), FLUSH_EVERY_MS);
    });
  }

  private knowsCarrierId(receipt: CarrierReceipt): boolean {
    return receiptKeys(receipt).some((key) => this.carrierIds.has(key));
  }

  /**
   * Receipts parked while another replica was recording their submission (each transaction saw
   * neither the other's carrier id nor its parked row) are tried again here, every few seconds.
   * Ones that match nothing for a day are dropped with a log line.
   */
  async sweepParkedReceipts(): Promise<number> {
    // Runs in the main lane's flush slot, in order with the submissions it may match.
    const lane = this.main;
    while (lane.flushing) await lane.flushing;
    const sweep = this.sweepOnce();
    lane.flushing = sweep.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await sweep;
    } finally {
      lane.flushing = undefined;
      if (lane.queue.length > 0) lane.timer ??= setTimeout(() => void this.flush(lane), 0);
    }
  }

  private async sweepOnce(): Promise<number> {
    let remembered: Committed = { states: [], sent: [], types: [], events: [] };
    const count = await this.dataSource.transaction(async (tx) => {
      const rows = rowsOf<{ receipt: CarrierReceipt; parked_at: Date }>(
        await tx.query(
          `DELETE FROM ${this.s}.parked_receipts WHERE id IN (
             SELECT id FROM ${this.s}.parked_receipts WHERE parked_at < now() - interval '2 seconds'
              ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED)
           RETURNING receipt, parked_at`,
        ),
      );
      const dayAgo = Date.now() - 24 * 3600_000;
      const stale = rows.filter((r) => Date.parse(r.receipt.receivedAt) < dayAgo);
      if (stale.length > 0) this.logger.warn({ receipts: stale.map((r) => r.receipt.carrierMessageId) }, 'receipts matching no message for a day dropped');
      const retry = rows.filter((r) => Date.parse(r.receipt.receivedAt) >= dayAgo);
      if (retry.length > 0) remembered = await this.decideAndAppend(tx, retry.map((r) => ({ receipt: r.receipt })));
      return retry.length;
    });
    this.remember(remembered);
    this.subscriptions.wakeFor(remembered.types);
    return count;
  }

  /** Writes everything gathered so far; resolves when it is committed (shutdown and tests). */
  async drain(): Promise<void> {
    const busy = (lane: Lane) => lane.queue.length > 0 || lane.flushing !== undefined;
    while (busy(this.main) || busy(this.receipts)) await Promise.all([this.flush(this.main), this.flush(this.receipts)]);
  }

  private async flush(lane: Lane): Promise<void> {
    clearTimeout(lane.timer);
    lane.timer = undefined;
    if (lane.flushing) return lane.flushing;
    const batch = lane.queue.splice(0, MAX_ITEMS_PER_FLUSH);
    if (batch.length === 0) return;
    lane.flushing = this.write(batch).finally(() => {
      lane.flushing = undefined;
      if (lane.queue.length > 0) lane.timer ??= setTimeout(() => void this.flush(lane), 0);
    });
    return lane.flushing;
  }

  private async write(batch: Pending[]): Promise<void> {
    let appended: string[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        const committed = await this.dataSource.transaction((tx) => this.decideAndAppend(tx, batch.map((p) => p.item)));
        this.remember(committed);
        appended = committed.types;
        break;
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_CONFLICT_RETRIES) {
          // Another writer (the other lane, a replica) appended: read this batch's streams afresh,
          // then every stream (the conflict may be on one a parked receipt brought in).
          if (attempt === 1) this.forget(batch.map((p) => p.item));
          else this.cache.clear();
          continue;
        }
        if (!(error instanceof ConcurrencyError) && !isPermanentDatabaseError(error) && attempt < MAX_TRANSIENT_RETRIES) {
          // The database restarting or a connection dropping: wait and write the same flush again.
          await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 5000)));
          continue;
        }
        this.logger.error({ err: error, items: batch.length }, 'message lifecycle not recorded');
        for (const p of batch) p.reject(error);
        return;
      }
    }
    for (const p of batch) p.resolve();
    this.subscriptions.wakeFor(appended);
  }

  /** One transaction for the whole batch; returns the states to remember once it committed. */
  private async decideAndAppend(tx: SqlExecutor, items: LifecycleItem[]): Promise<Committed> {
    // Submitted ids are stored under their normalised key only; a receipt's id is looked up in
    // every form it may stand for (hex read as decimal and the reverse).
    const receipts = items.flatMap((i) => ('receipt' in i ? [i.receipt] : []));
    const umidByKey = new Map<string, string>();
    const unknownKeys: string[] = [];
    for (const receipt of receipts) {
      const keys = receiptKeys(receipt);
      const known = keys.find((key) => this.carrierIds.has(key));
      if (known) umidByKey.set(known, this.carrierIds.get(known) as string);
      else unknownKeys.push(...keys);
    }
    for (const [key, umid] of await this.umidsByCarrierKey(tx, unknownKeys)) umidByKey.set(key, umid);
    const umidOfReceipt = (receipt: CarrierReceipt): string | undefined =>
      umidByKey.get(receiptKey(receipt)) ?? receiptKeys(receipt).map((key) => umidByKey.get(key)).find(Boolean);
    const decisions: { umid: string; command: MessageCommand }[] = [];
    const toPark: CarrierReceipt[] = [];
    const superseded = await this.fencedOff(tx, items);
    for (const item of items) {
      if (!('receipt' in item)) {
        if (!superseded.has(item)) decisions.push(item);
        continue;
      }
      const umid = umidOfReceipt(item.receipt);
      if (umid) decisions.push({ umid, command: { type: 'RecordReceipt', receipt: item.receipt } });
      else toPark.push(item.receipt);
    }

    const umids = [...new Set(decisions.map((d) => d.umid))];
    const states = new Map<string, { version: number; state: MessageState; traceparent: string | null; events: MessageLifecycleEvent[] }>();
    const unknown = umids.filter((umid) => !this.cache.has(umid));
    const streams = await this.store.readStreams(tx, unknown.map(messageStreamId));
    for (const umid of umids) {
      const cached = this.cache.get(umid);
      if (cached) {
        states.set(umid, { ...cached, events: [] });
        continue;
      }
      const events = streams.get(messageStreamId(umid)) ?? [];
      const traceparent = events.at(-1)?.traceparent ?? null;
      states.set(umid, { version: events.length, state: events.reduce(evolveMessage, initialMessageState()), traceparent, events: [] });
    }
    // A submission's events carry its span on; a receipt's, the trace of the message's submission.
    for (const item of items) {
      const entry = 'umid' in item && item.traceparent !== undefined ? states.get(item.umid) : undefined;
      if (entry && 'umid' in item && !superseded.has(item)) entry.traceparent = item.traceparent ?? null;
    }
    const decide = (umid: string, command: MessageCommand) => {
      const entry = states.get(umid);
      if (!entry) return;
      try {
        const decided = decideMessage(command, entry.state);
        entry.events.push(...decided);
        entry.state = decided.reduce(evolveMessage, entry.state);
      } catch (error) {
        if (error instanceof ReceiptBeforeSubmissionError && command.type === 'RecordReceipt') {
          toPark.push(command.receipt);
          // Parked against what this replica knew: the sweep reads the stream again.
          this.cache.delete(umid);
        }
        // One item the decider refuses (a receipt matching no part, a wrong part count) must not
        // sink the others of its flush: it is logged and left out.
        else this.logger.error({ err: error, umid, command: command.type }, 'message decision refused; item skipped');
      }
    };
    for (const { umid, command } of decisions) decide(umid, command);

    // Receipts that came before their submission was recorded: applied in this same transaction.
    const sentNow = [...states.entries()].flatMap(([umid, e]) =>
      e.events
        .filter((ev) => ev.type === 'MessageSent')
        .flatMap((ev) => (ev.data as MessageSentV1).carrierMessageIds.map((id) => ({ id, umid, carrierId: (ev.data as MessageSentV1).carrierId }))),
    );
    if (sentNow.length > 0) {
      // Parked receipts are keyed by their own id's normalised form: match every form of the sent ids.
      const umidOf = new Map(sentNow.flatMap(({ id, umid, carrierId }) => carrierIdKeys(id).map((key) => [carrierScopedKey(carrierId, key), umid] as const)));
      const parked = rowsOf<{ carrier_key: string; receipt: CarrierReceipt }>(
        await tx.query(`DELETE FROM ${this.s}.parked_receipts WHERE carrier_key = ANY($1::text[]) RETURNING carrier_key, receipt`, [
          [...umidOf.keys()],
        ]),
      );
      for (const { carrier_key, receipt } of parked) decide(umidOf.get(carrier_key) as string, { type: 'RecordReceipt', receipt });
      // And receipts of this very batch that could not be matched before these submissions were decided.
      for (const receipt of toPark.splice(0)) {
        const umid = umidOf.get(receiptKey(receipt));
        if (umid) decide(umid, { type: 'RecordReceipt', receipt });
        else toPark.push(receipt);
      }
    }

    const changed = [...states.entries()].filter(([, e]) => e.events.length > 0);
    const context = currentCorrelation();
    // The cached state leaves the text out: it is not needed after submission and is the bulk of it.
    const toRemember = changed.map(([umid, e]): [string, CachedState] => [
      umid,
      { version: e.version + e.events.length, state: { ...e.state, text: null }, traceparent: e.traceparent },
    ]);
    await this.store.append(
      tx,
      changed.map(([umid, e]) => ({ streamId: messageStreamId(umid), expectedVersion: e.version, events: e.events, traceparent: e.traceparent })),
      { correlationId: context?.correlationId ?? 'carrier', causationId: null, occurredAt: new Date().toISOString() },
    );

    const sent = sentNow.map(({ id, umid, carrierId }) => ({ key: carrierScopedKey(carrierId, carrierIdKey(id)), umid })).filter((k) => k.key !== '');
    if (sent.length > 0) {
      await tx.query(
        `INSERT INTO ${this.s}.carrier_ids (carrier_key, umid)
         SELECT key, umid FROM jsonb_to_recordset($1::jsonb) AS r(key text, umid uuid) ON CONFLICT DO NOTHING`,
        [JSON.stringify(sent)],
      );
    }
    // Sent or final: off the queue now, so it is never claimed again (the queue projection agrees later).
    const leaving = changed.filter(([, e]) => e.events.some((ev) => ev.type === 'MessageSent' || ev.type === 'MessageUndelivered'));
    if (leaving.length > 0) await tx.query(`DELETE FROM ${this.s}.outbound_queue WHERE umid = ANY($1::uuid[])`, [leaving.map(([u]) => u)]);
    if (toPark.length > 0) {
      await tx.query(
        `INSERT INTO ${this.s}.parked_receipts (carrier_key, receipt)
         SELECT key, receipt FROM jsonb_to_recordset($1::jsonb) AS r(key text, receipt jsonb)`,
        [JSON.stringify(toPark.map((receipt) => ({ key: receiptKey(receipt), receipt })))],
      );
    }
    const events = changed.flatMap(([, e]) => e.events);
    return { states: toRemember, sent, types: [...new Set(events.map((ev) => ev.type))], events };
  }

  /** Committed: the folded states are now what the streams hold, the carrier ids what the table holds. */
  private remember({ states, sent, events }: Committed): void {
    countLifecycleEvents(events);
    for (const { key, umid } of sent) {
      this.carrierIds.delete(key); // re-inserted at the end: the newest entries are evicted last
      this.carrierIds.set(key, umid);
    }
    for (const key of this.carrierIds.keys()) {
      if (this.carrierIds.size <= MAX_REMEMBERED_CARRIER_IDS) break;
      this.carrierIds.delete(key);
    }
    for (const [umid, entry] of states) {
      // Only sent messages wait here for their receipts. A queued one may be sent next by another
      // replica (after a failover this one recorded), so a state kept from now could be stale then.
      if (entry.state.status === 'sent') this.cache.set(umid, entry);
      else this.cache.delete(umid);
    }
    // Oldest first out: a Map iterates in insertion order.
    for (const umid of this.cache.keys()) {
      if (this.cache.size <= MAX_CACHED_STATES) break;
      this.cache.delete(umid);
    }
  }

  private forget(items: LifecycleItem[]): void {
    for (const item of items) {
      if ('umid' in item) this.cache.delete(item.umid);
      for (const key of 'receipt' in item ? receiptKeys(item.receipt) : []) {
        const umid = this.carrierIds.get(key);
        if (umid) this.cache.delete(umid);
      }
    }
  }

  /**
   * Results of claims that are no longer the row's: the lease ran out and another sender claimed
   * the message again (this replica was paused, or cut off from the database). Their row is locked
   * here, so no claim can take it until this transaction ends; a row that is gone was recorded
   * already, and the decider treats the result as the repeat it is.
   */
  private async fencedOff(tx: SqlExecutor, items: LifecycleItem[]): Promise<Set<LifecycleItem>> {
    const held = items.filter((i): i is Extract<LifecycleItem, { umid: string }> => 'umid' in i && i.leaseToken !== undefined);
    if (held.length === 0) return new Set();
    const rows = rowsOf<{ umid: string; lease_token: string | null }>(
      await tx.query(`SELECT umid, lease_token FROM ${this.s}.outbound_queue WHERE umid = ANY($1::uuid[]) ORDER BY umid FOR UPDATE`, [
        [...new Set(held.map((i) => i.umid))],
      ]),
    );
    const tokenOf = new Map(rows.map((r) => [r.umid, r.lease_token === null ? null : String(r.lease_token)]));
    const stale = held.filter((i) => tokenOf.has(i.umid) && tokenOf.get(i.umid) !== i.leaseToken);
    if (stale.length > 0) {
      this.logger.warn(
        { umids: stale.map((i) => i.umid), commands: stale.map((i) => i.command.type) },
        'results of claims whose lease ran out are not recorded: another sender holds these messages now',
      );
    }
    return new Set(stale);
  }

  private async umidsByCarrierKey(tx: SqlExecutor, keys: string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    // A carrier that restarts may hand out an id again: the latest message that got it wins.
    const rows: { carrier_key: string; umid: string }[] = await tx.query(
      `SELECT DISTINCT ON (carrier_key) carrier_key, umid FROM ${this.s}.carrier_ids
        WHERE carrier_key = ANY($1::text[]) ORDER BY carrier_key, seq DESC`,
      [keys],
    );
    return new Map(rows.map((r) => [r.carrier_key, r.umid]));
  }
}

/** Every key a receipt's id may have been stored under, within its carrier. */
function receiptKeys(receipt: CarrierReceipt): string[] {
  return carrierIdKeys(receipt.carrierMessageId).map((key) => carrierScopedKey(receipt.carrierId, key));
}

/** The one key of a receipt's own id, within its carrier. */
function receiptKey(receipt: CarrierReceipt): string {
  return carrierScopedKey(receipt.carrierId, carrierIdKey(receipt.carrierMessageId));
}
