import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { quoteSchema, type AppendToStream, type CommandPipeline, type EventStore, type SqlExecutor } from '@seed/platform-event-store';
import { inboundGroupStreamId, inboundMessageStreamId, optOutStreamId, type InboundMessageReceivedV1, type NumberAssignedV1 } from '@seed/sms-batch-contracts';
import {
  decideInboundExpiry,
  decideInboundPart,
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
import { countInbound } from './inbound.metrics';

export interface InboundSettings {
  /** A part equal to one recorded this recently is the carrier's resend (its deliver_sm_resp was lost). */
  duplicateWindowMs: number;
  /** How long parts wait for their siblings before they are delivered without them. */
  maxWaitMs: number;
}

const MAX_CONFLICT_RETRIES = 5;

/**
 * Records inbound SMS before the carrier is answered: the part into its stream (a single part's
 * own, or its reference's), the whole message when it is complete, a STOP or START as the
 * recipient's opt-out or opt-in, and a HELP's answer, all in one transaction. A part on another
 * session or replica may race for the same stream: the append at the version read is tried again.
 * The caller acknowledges only when this resolves, so a crash before the commit makes the carrier send it again.
 */
export class InboundRecorder {
  private readonly openGroups: string;

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

  async record(carrierId: string, fields: Readonly<Record<string, unknown>>): Promise<void> {
    const part = parseInboundPdu(inboundPduFromSmppFields(fields));
    const key = siblingKey(part);
    const streamId = key === null ? inboundMessageStreamId(digest([part.source, part.destination, part.encoding, part.userData])) : inboundGroupStreamId(digest([key]));
    const receivedAt = new Date().toISOString();
    // A number assigned a moment ago may not be in this replica's copy yet: look again before deciding it is none of ours.
    const addressee = this.addresseeOf(part.destination) ?? (await this.numbers.refresh().then(() => this.addresseeOf(part.destination)));
    const events = await this.inTransaction(streamId, async (tx, state) =>
      decideInboundPart({ part, carrierId, receivedAt, umid: randomUUID(), groupId: randomUUID(), addressee, duplicateWindowMs: this.settings.duplicateWindowMs }, state),
    );
    countInbound(events);
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

  /**
   * Decides on the stream as stored and appends what was decided, with the opt-out and the HELP's
   * answer it implies, in the command pipeline (no processed record: a copy decides nothing).
   * Returns the stream's events decided.
   */
  private async inTransaction(streamId: string, decide: (tx: SqlExecutor, state: InboundStreamState) => Promise<InboundEvent[]>): Promise<InboundEvent[]> {
    const metadata = { correlationId: streamId, causationId: null, traceparent: null, occurredAt: new Date().toISOString() };
    return this.pipeline.run({ consumer: 'inbound', commandId: null, metadata, attempts: MAX_CONFLICT_RETRIES }, async (tx) => {
      const stored = await this.store.readStream(tx, streamId);
      const state = stored.reduce(evolveInbound, EMPTY_INBOUND_STREAM);
      const events = await decide(tx, state);
      const message = events.find((e) => e.type === 'InboundMessageReceived')?.data as InboundMessageReceivedV1 | undefined;
      await this.trackOpenGroup(tx, streamId, state, events);
      const appends: AppendToStream[] = [
        { streamId, expectedVersion: stored.length, events },
        ...(message ? await this.optOutAppends(tx, message) : []),
        ...(message ? helpReplyAppends(message, this.numberFor(message.destination)?.helpText ?? null) : []),
      ];
      // A message correlates everything it caused (its opt-out, its HELP's answer) by its umid; a part still waiting, by its stream.
      return { appends, result: events, metadata: message ? { correlationId: message.umid } : {} };
    });
  }

  /** STOP-family and START-family texts to a number of ours change the sender's opt-out of its sub-account. */
  private async optOutAppends(tx: SqlExecutor, message: InboundMessageReceivedV1): Promise<AppendToStream[]> {
    if (message.accountId === null || message.subAccountId === null || (message.keyword !== 'opt-out' && message.keyword !== 'opt-in')) return [];
    const msisdn = normalizeMsisdn(message.source) ?? message.source;
    const optOutStream = optOutStreamId(message.subAccountId, msisdn);
    const stored = await this.store.readStream(tx, optOutStream);
    const change = { accountId: message.accountId, subAccountId: message.subAccountId, msisdn, source: 'keyword' as const, keyword: message.body.trim(), at: message.receivedAt };
    const events = decideOptOut({ ...change, type: message.keyword === 'opt-out' ? 'OptOut' : 'OptIn' }, stored.reduce(evolveOptOut, NO_OPT_OUT));
    if (events.length > 0) this.logger.info({ subAccountId: message.subAccountId, keyword: message.keyword }, 'recipient changed its opt-out by keyword');
    return events.length > 0 ? [{ streamId: optOutStream, expectedVersion: stored.length, events }] : [];
  }

  private async trackOpenGroup(tx: SqlExecutor, streamId: string, before: InboundStreamState, events: readonly InboundEvent[]): Promise<void> {
    // A completed group, or an expiry sweep that found the stream with nothing waiting: not open.
    if (events.some((e) => e.type === 'InboundMessageReceived') || (!before.open && events.length === 0 && streamId.startsWith('inbound-group-'))) {
      await tx.query(`DELETE FROM ${this.openGroups} WHERE stream_id = $1`, [streamId]);
    } else if (!before.open && events.some((e) => e.type === 'InboundPartReceived')) {
      await tx.query(`INSERT INTO ${this.openGroups} (stream_id, opened_at) VALUES ($1, now()) ON CONFLICT (stream_id) DO NOTHING`, [streamId]);
    }
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

/** Stream ids stay short and carry no phone number or text. */
const digest = (parts: readonly string[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32);
