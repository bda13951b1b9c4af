import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { ConcurrencyError, isTransientDatabaseError, quoteSchema, type AppendToStream, type CommandPipeline, type EventStore, type SqlExecutor } from '@seed/platform-event-store';
import { inboundGroupStreamId, inboundMessageStreamId, optOutStreamId, type InboundMessageReceivedV1, type NumberAssignedV1 } from '@seed/sms-batch-contracts';
import {
  decideInboundExpiry,
  decideOptOut,
  EMPTY_INBOUND_STREAM,
  evolveInbound,
  evolveOptOut,
  inboundPduFromSmppFields,
  NO_OPT_OUT,
  normalizeMsisdn,
  parseInboundPdu,
  siblingKey,
  type InboundAddressee,
  type InboundEvent,
  type InboundStreamState,
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
  private readonly pending: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly numbers: StoredNumbers,
    private readonly pipeline: CommandPipeline,
    private readonly logger: Logger,
    private readonly settings: InboundSettings,
  ) {
    this.openGroups = `${quoteSchema(store.schema)}.inbound_open_groups`;
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
    const addressee = this.addresseeOf(part.destination) ?? (await this.numbers.refresh().then(() => this.addresseeOf(part.destination)));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item: { part, streamId, carrierId, receivedAt, addressee }, resolve, reject });
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
      const addressee = first ? this.addresseeOf(first.part.destination) : null;
      return decideInboundExpiry({ at: new Date().toISOString(), umid: randomUUID(), addressee, maxWaitMs: this.settings.maxWaitMs }, state);
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
    const help = helpReplyAppends(message, this.numberFor(message.destination)?.helpText ?? null).map((a) => ({ ...a, correlationId: message.umid }));
    return [...(await this.optOutAppends(tx, message, earlier)), ...help];
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

  private addresseeOf(destination: string): InboundAddressee | null {
    const number = this.numberFor(destination);
    return number ? { accountId: number.accountId, subAccountId: number.subAccountId, inboundWebhookUrl: number.inboundWebhookUrl } : null;
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
