import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { currentCorrelation } from '@seed/platform-logging';
import { CommandPipeline, EventStore, quoteSchema, type Decision, type RetryState, type SqlExecutor } from '@seed/platform-event-store';
import { LOGGER, ServiceSchema } from '@seed/platform-nest';
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
import { receiptKey, receiptKeys, recordCarrierIds, umidsByCarrierKey } from './carrier-ids.sql';
import { fencedOff } from './lifecycle-fence';
import type { LifecycleItem } from './lifecycle-item';
import { takeParkedReceipts, takeStaleParkedReceipts } from './parked-receipts.sql';
import { LifecycleMemory, type CachedState, type Committed } from './lifecycle-memory';
import { countLifecycleEvents } from './message-lifecycle.metrics';

export type { LifecycleItem };
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

  private readonly memory = new LifecycleMemory();

  constructor(
    private readonly store: EventStore,
    private readonly pipeline: CommandPipeline,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.s = quoteSchema(schema.name);
  }

  record(item: LifecycleItem): Promise<void> {
    const lane = 'receipt' in item && this.memory.knows(item.receipt) ? this.receipts : this.main;
    return new Promise((resolve, reject) => {
      lane.queue.push({ item, resolve, reject });
      if (lane.queue.length >= MAX_ITEMS_PER_FLUSH) void this.flush(lane);
      else lane.timer ??= setTimeout(() => void this.flush(lane), FLUSH_EVERY_MS);
    });
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
    const metadata = { correlationId: currentCorrelation()?.correlationId ?? 'carrier', causationId: null, occurredAt: new Date().toISOString() };
    const { count, committed } = await this.pipeline.run({ consumer: 'message-lifecycle', commandId: null, metadata }, async (tx, retry) => {
      // Another writer appended to a stream this replica remembered: read them all afresh.
      if (retry.conflicts > 0) this.memory.states.clear();
      const rows = await takeStaleParkedReceipts(tx, this.s);
      const dayAgo = Date.now() - 24 * 3600_000;
      const stale = rows.filter((r) => Date.parse(r.receipt.receivedAt) < dayAgo);
      if (stale.length > 0) this.logger.warn({ receipts: stale.map((r) => r.receipt.carrierMessageId) }, 'receipts matching no message for a day dropped');
      const retried = rows.filter((r) => Date.parse(r.receipt.receivedAt) >= dayAgo);
      if (retried.length === 0) return { appends: [], result: { count: 0, committed: { states: [], sent: [], types: [], events: [] } } };
      const decided = await this.decide(tx, retried.map((r) => ({ receipt: r.receipt })));
      return { ...decided, result: { count: retried.length, committed: decided.result } };
    });
    countLifecycleEvents(committed.events);
    this.memory.remember(committed);
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

  /**
   * One transaction for the whole batch. A database outage is waited out (nobody would send these
   * items again); after a conflict (the other lane, a replica) this batch's streams are read
   * afresh, and after a second every stream (it may be on one a parked receipt brought in).
   */
  private async write(batch: Pending[]): Promise<void> {
    const items = batch.map((p) => p.item);
    const metadata = { correlationId: currentCorrelation()?.correlationId ?? 'carrier', causationId: null, occurredAt: new Date().toISOString() };
    try {
      const committed = await this.pipeline.run({ consumer: 'message-lifecycle', commandId: null, metadata, outage: 'wait' }, (tx, retry) => {
        this.forgetAfter(retry, items);
        return this.decide(tx, items);
      });
      countLifecycleEvents(committed.events);
      this.memory.remember(committed);
    } catch (error) {
      this.logger.error({ err: error, items: batch.length }, 'message lifecycle not recorded');
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) p.resolve();
  }

  private forgetAfter(retry: RetryState, items: LifecycleItem[]): void {
    if (retry.conflicts === 1) this.memory.forget(items);
    else if (retry.conflicts > 1) this.memory.states.clear();
  }

  /** Decides the whole batch: what to append, and the states to remember once it committed. */
  private async decide(tx: SqlExecutor, items: LifecycleItem[]): Promise<Decision<Committed>> {
    // Submitted ids are stored under their normalised key only; a receipt's id is looked up in
    // every form it may stand for (hex read as decimal and the reverse).
    const receipts = items.flatMap((i) => ('receipt' in i ? [i.receipt] : []));
    const umidByKey = new Map<string, string>();
    const unknownKeys: string[] = [];
    for (const receipt of receipts) {
      const keys = receiptKeys(receipt);
      const known = keys.find((key) => this.memory.carrierIds.has(key));
      if (known) umidByKey.set(known, this.memory.carrierIds.get(known) as string);
      else unknownKeys.push(...keys);
    }
    for (const [key, umid] of await umidsByCarrierKey(tx, this.s, unknownKeys)) umidByKey.set(key, umid);
    const umidOfReceipt = (receipt: CarrierReceipt): string | undefined =>
      umidByKey.get(receiptKey(receipt)) ?? receiptKeys(receipt).map((key) => umidByKey.get(key)).find(Boolean);
    const decisions: { umid: string; command: MessageCommand }[] = [];
    const toPark: CarrierReceipt[] = [];
    const superseded = await fencedOff(tx, this.s, items, this.logger);
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
    const unknown = umids.filter((umid) => !this.memory.states.has(umid));
    const streams = await this.store.readStreams(tx, unknown.map(messageStreamId));
    for (const umid of umids) {
      const cached = this.memory.states.get(umid);
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
          this.memory.states.delete(umid);
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
      for (const { carrier_key, receipt } of await takeParkedReceipts(tx, this.s, [...umidOf.keys()])) decide(umidOf.get(carrier_key) as string, { type: 'RecordReceipt', receipt });
      // And receipts of this very batch that could not be matched before these submissions were decided.
      for (const receipt of toPark.splice(0)) {
        const umid = umidOf.get(receiptKey(receipt));
        if (umid) decide(umid, { type: 'RecordReceipt', receipt });
        else toPark.push(receipt);
      }
    }

    const changed = [...states.entries()].filter(([, e]) => e.events.length > 0);
    // The cached state leaves the text out: it is not needed after submission and is the bulk of it.
    const toRemember = changed.map(([umid, e]): [string, CachedState] => [
      umid,
      { version: e.version + e.events.length, state: { ...e.state, text: null }, traceparent: e.traceparent },
    ]);
    const appends = changed.map(([umid, e]) => ({ streamId: messageStreamId(umid), expectedVersion: e.version, events: e.events, traceparent: e.traceparent }));

    const sent = sentNow.map(({ id, umid, carrierId }) => ({ key: carrierScopedKey(carrierId, carrierIdKey(id)), umid })).filter((k) => k.key !== '');
    await recordCarrierIds(tx, this.s, sent);
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
    // The pipeline appends after these rows, in the same transaction.
    return { appends, result: { states: toRemember, sent, types: [...new Set(events.map((ev) => ev.type))], events }, occurredAt: new Date().toISOString() };
  }
}
