import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { ConcurrencyError, isTransientDatabaseError, lockKeys, lockSlot, quoteSchema, type AppendToStream, type CommandPipeline, type EventStore, type SqlExecutor } from '@seed/platform-event-store';
import { inboundGroupStreamId, inboundMessageStreamId, optOutStreamId, type InboundMessageReceivedV1, type NumberAssignedV1 } from '@seed/sms-batch-contracts';
import {
  decideInboundExpiry,
  decideOptOut,
  EMPTY_INBOUND_STREAM,
  evolveInbound,
  evolveOptOut,
  inboundPduFromSmppFields,
  mayDeliverInbound,
  NO_OPT_OUT,
  normalizeMsisdn,
  parseInboundPdu,
  siblingKey,
  type InboundAddressee,
  type InboundEvent,
  type InboundStreamState,
  type RoutingTable,
} from '@seed/sms-batch-domain';
import type { StoredNumbers } from '../numbers/stored-numbers';
import { helpReplyAppends } from './help-reply';
import { decideInboundBatch, type InboundItem } from './inbound-batch';
import { countInbound } from './inbound.metrics';

export interface InboundSettings {
  /** A part equal to one recorded this recently is the carrier's resend (its deliver_sm_resp was lost). */
  duplicateWindowMs: number;
  /** How long parts wait for their siblings before they are delivered without them. */
  maxWaitMs: number;
  /** HELP answers a handset gets from one number in an hour at most; past it, a HELP is recorded and not answered. Default 3. */
  helpRepliesPerHour?: number;
}

/** deliver_sm written in one transaction at most: a carrier's window is typically 10-100 a session. */
const MAX_BATCH = 200;

interface Pending {
  item: InboundItem;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Records inbound SMS before the carrier is answered: the part into its stream (a single part's
 * own, or its reference's), the whole message when it is complete, a STOP or START as the
 * recipient's opt-out or opt-in, and a HELP's answer, all in one transaction. A part on another
 * session or replica may race for the same stream: the append at the version read is tried again.
 * The caller acknowledges only when this resolves, so a crash before the commit makes the carrier send it again.
 */
export class InboundRecorder {
  private readonly openGroups: string;
  private readonly helpReplies: string;
  private readonly pending: Pending[] = [];
  private writing: Promise<void> | undefined;
  /** The routing table the numbers' carriers are read from; unset, any carrier may deliver to any number. */
  private routing: (() => RoutingTable) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly numbers: StoredNumbers,
    private readonly pipeline: CommandPipeline,
    private readonly logger: Logger,
    private readonly settings: InboundSettings,
  ) {
    this.openGroups = `${quoteSchema(store.schema)}.inbound_open_groups`;
    this.helpReplies = `${quoteSchema(store.schema)}.help_replies`;
  }

  /** Holds inbound SMS to the carriers that may deliver them (mayDeliverInbound), read from `table` as it is then. */
  bindRouting(table: () => RoutingTable): void {
    this.routing = table;
  }

  /**
   * Records one deliver_sm; resolves once it is committed (the caller then answers the carrier).
   * deliver_sm that arrive while a batch is being written wait for the next, and are written
   * together: one transaction for up to MAX_BATCH of them rather than one each.
   */
  async record(carrierId: string, fields: Readonly<Record<string, unknown>>): Promise<void> {
    const part = parseInboundPdu(inboundPduFromSmppFields(fields));
    const key = siblingKey(part);
    const streamId = key === null ? inboundMessageStreamId(digest([part.source, part.destination, part.encoding, part.userData])) : inboundGroupStreamId(digest([key]));
    const receivedAt = new Date().toISOString();
    // A number assigned a moment ago may not be in this replica's copy yet: look again before deciding it is none of ours.
    if (!this.numberFor(part.destination)) await this.numbers.refresh();
    const { addressee, unboundCarrier } = this.ownerOf(part.destination, carrierId);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item: { part, streamId, carrierId, receivedAt, addressee, unboundCarrier }, resolve, reject });
      if (!this.writing) this.writing = this.writeAll().finally(() => (this.writing = undefined));
    });
  }

  private async writeAll(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      try {
        const perItem = await this.recordBatch(batch.map((p) => p.item));
        for (const events of perItem) countInbound(events);
        for (const p of batch) p.resolve();
      } catch (error) {
        if (batch.length === 1 || isTransientDatabaseError(error) || error instanceof ConcurrencyError) {
          // None of them is recorded: each deliver_sm is answered with a temporary error and comes again.
          for (const p of batch) p.reject(error);
          continue;
        }
        // One of them can never be recorded (its content): each is written alone, so that only
        // that one is refused and the others are recorded, not refused with it.
        for (const p of batch) {
          try {
            const [events] = await this.recordBatch([p.item]);
            if (events) countInbound(events);
            p.resolve();
          } catch (alone) {
            p.reject(alone);
          }
        }
      }
    }
  }

  private recordBatch(items: readonly InboundItem[]): Promise<InboundEvent[][]> {
    const metadata = { correlationId: items[0]?.streamId ?? 'inbound', causationId: null, traceparent: null, occurredAt: new Date().toISOString() };
    return this.pipeline.run({ consumer: 'inbound', commandId: null, metadata }, async (tx) => {
      const stored = await this.store.readStreams(tx, [...new Set(items.map((i) => i.streamId))]);
      const decided = decideInboundBatch(items, stored, this.settings.duplicateWindowMs);
      if (decided.opened.length > 0) await tx.query(`INSERT INTO ${this.openGroups} (stream_id, opened_at) SELECT unnest($1::text[]), now() ON CONFLICT (stream_id) DO NOTHING`, [decided.opened]);
      if (decided.closed.length > 0) await tx.query(`DELETE FROM ${this.openGroups} WHERE stream_id = ANY($1::text[])`, [decided.closed]);
      const appends: AppendToStream[] = [...decided.appends];
      for (const message of decided.messages) appends.push(...(await this.followUps(tx, message, appends)));
      return { appends: coalesced(appends), result: decided.perItem };
    });
  }

  /** Delivers the parts of a stream that waited past `maxWaitMs`, marked incomplete. */
  async expire(streamId: string): Promise<void> {
    const events = await this.inTransaction(streamId, async (_tx, state) => {
      const first = state.open?.parts[0];
      const owner = first ? this.ownerOf(first.part.destination, first.carrierId) : { addressee: null, unboundCarrier: false };
      return decideInboundExpiry({ at: new Date().toISOString(), umid: randomUUID(), maxWaitMs: this.settings.maxWaitMs, ...owner }, state);
    });
    if (events.length > 0) countInbound(events);
  }

  /** Streams whose first part is older than `maxWaitMs`, oldest first. */
  async overdue(limit = 100): Promise<string[]> {
    const rows = (await this.dataSource.query(`SELECT stream_id FROM ${this.openGroups} WHERE opened_at <= now() - make_interval(secs => $1) ORDER BY opened_at LIMIT $2`, [
      this.settings.maxWaitMs / 1000,
      limit,
    ])) as { stream_id: string }[];
    return rows.map((r) => r.stream_id);
  }

  /** The expiry of one stream's waiting parts, with the opt-out and HELP's answer the message implies. */
  private async inTransaction(streamId: string, decide: (tx: SqlExecutor, state: InboundStreamState) => Promise<InboundEvent[]>): Promise<InboundEvent[]> {
    const metadata = { correlationId: streamId, causationId: null, traceparent: null, occurredAt: new Date().toISOString() };
    return this.pipeline.run({ consumer: 'inbound', commandId: null, metadata }, async (tx) => {
      const stored = await this.store.readStream(tx, streamId);
      const events = await decide(tx, stored.reduce(evolveInbound, EMPTY_INBOUND_STREAM));
      const message = events.find((e) => e.type === 'InboundMessageReceived')?.data as InboundMessageReceivedV1 | undefined;
      // Delivered, or nothing waits there any more (another replica's sweep): the stream is not open.
      if (message || events.length === 0) await tx.query(`DELETE FROM ${this.openGroups} WHERE stream_id = $1`, [streamId]);
      const appends: AppendToStream[] = [{ streamId, expectedVersion: stored.length, events, correlationId: message?.umid ?? streamId }];
      if (message) appends.push(...(await this.followUps(tx, message, appends)));
      return { appends, result: events };
    });
  }

  /** STOP-family and START-family texts to a number of ours change the sender's opt-out of its sub-account. */
  /** What a whole message causes besides itself: its sender's opt-out or opt-in, and HELP's answer. */
  private async followUps(tx: SqlExecutor, message: InboundMessageReceivedV1, earlier: readonly AppendToStream[]): Promise<AppendToStream[]> {
    const answer = helpReplyAppends(message, this.numberFor(message.destination)?.helpText ?? null).map((a) => ({ ...a, correlationId: message.umid }));
    const help = answer.length > 0 && (await this.helpAnswerAllowed(tx, message)) ? answer : [];
    return [...(await this.optOutAppends(tx, message, earlier)), ...help];
  }

  /**
   * Whether a HELP may be answered: fewer than `helpRepliesPerHour` answers went from this number to
   * this handset in the hour before it (counted under a lock of the pair, so two replicas count one
   * after the other). A forged or repeated HELP cannot make the platform text a handset without end.
   */
  private async helpAnswerAllowed(tx: SqlExecutor, message: InboundMessageReceivedV1): Promise<boolean> {
    const pair = [message.destination, message.source, message.receivedAt];
    await lockKeys(tx, this.store.schema, [lockSlot('help-replies', `${message.destination}:${message.source}`)]);
    await tx.query(`DELETE FROM ${this.helpReplies} WHERE number = $1 AND recipient = $2 AND sent_at <= $3::timestamptz - interval '1 hour'`, pair);
    const [row] = (await tx.query(`SELECT count(*)::int AS n FROM ${this.helpReplies} WHERE number = $1 AND recipient = $2`, pair.slice(0, 2))) as { n: number }[];
    if ((row?.n ?? 0) >= (this.settings.helpRepliesPerHour ?? 3)) {
      this.logger.info({ number: message.destination, umid: message.umid }, 'HELP not answered: the handset had its answers from this number this hour');
      return false;
    }
    await tx.query(`INSERT INTO ${this.helpReplies} (number, recipient, sent_at) VALUES ($1, $2, $3)`, pair);
    return true;
  }

  /**
   * STOP-family and START-family texts to a number of ours change the sender's opt-out of its
   * sub-account; `earlier` (the batch's appends so far) holds a STOP and START of one batch in order.
   */
  private async optOutAppends(tx: SqlExecutor, message: InboundMessageReceivedV1, earlier: readonly AppendToStream[]): Promise<AppendToStream[]> {
    if (message.accountId === null || message.subAccountId === null || (message.keyword !== 'opt-out' && message.keyword !== 'opt-in')) return [];
    const msisdn = normalizeMsisdn(message.source) ?? message.source;
    const optOutStream = optOutStreamId(message.subAccountId, msisdn);
    const stored = await this.store.readStream(tx, optOutStream);
    const before = earlier.filter((a) => a.streamId === optOutStream).flatMap((a) => a.events);
    const state = [...stored, ...before].reduce(evolveOptOut, NO_OPT_OUT);
    const change = { accountId: message.accountId, subAccountId: message.subAccountId, msisdn, source: 'keyword' as const, keyword: message.body.trim(), at: message.receivedAt };
    const events = decideOptOut({ ...change, type: message.keyword === 'opt-out' ? 'OptOut' : 'OptIn' }, state);
    if (events.length > 0) this.logger.info({ subAccountId: message.subAccountId, keyword: message.keyword }, 'recipient changed its opt-out by keyword');
    return events.length > 0 ? [{ streamId: optOutStream, expectedVersion: stored.length + before.length, events, correlationId: message.umid }] : [];
  }

  /** The number as assigned: E.164 digits as the carrier wrote them, or once normalised (a national form). */
  private numberFor(destination: string): NumberAssignedV1 | undefined {
    return this.numbers.numberOf(destination) ?? this.numbers.numberOf(normalizeMsisdn(destination) ?? destination);
  }

  /**
   * Who a message to `destination` belongs to: the number's sub-account, unless the carrier that
   * delivered it may not deliver to that number; then nobody (it is recorded, and not acted on).
   */
  private ownerOf(destination: string, carrierId: string): { addressee: InboundAddressee | null; unboundCarrier: boolean } {
    const number = this.numberFor(destination);
    if (!number) return { addressee: null, unboundCarrier: false };
    if (this.routing && !mayDeliverInbound(carrierId, number, this.routing())) {
      this.logger.warn({ carrierId, number: number.number, subAccountId: number.subAccountId }, 'inbound SMS from a carrier that may not deliver to the number: recorded, not acted on');
      return { addressee: null, unboundCarrier: true };
    }
    return { addressee: { accountId: number.accountId, subAccountId: number.subAccountId, inboundWebhookUrl: number.inboundWebhookUrl }, unboundCarrier: false };
  }
}

/**
 * One append per stream (the event store checks each stream's version once per write): a STOP and
 * a START of one handset in one batch become one append of both, in order.
 */
function coalesced(appends: readonly AppendToStream[]): AppendToStream[] {
  const byStream = new Map<string, AppendToStream>();
  for (const append of appends) {
    const first = byStream.get(append.streamId);
    byStream.set(append.streamId, first ? { ...first, events: [...first.events, ...append.events], correlationId: append.correlationId ?? first.correlationId } : append);
  }
  return [...byStream.values()];
}

/** Stream ids stay short and carry no phone number or text. */
const digest = (parts: readonly string[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32);
