import { v7 as uuidv7 } from 'uuid';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload, Ctx } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { ConcurrencyError, EventStore, ProcessedMessages, quoteSchema, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import { inSpan, onwardTraceparent, SpanKind } from '@seed/platform-telemetry';
import { BatchRejectedError, decideSubmitBatch, initialBatchState } from '@seed/sms-batch-domain';
import {
  batchStreamId,
  messageStreamId,
  type BatchResponse,
  type BatchSubmittedV1,
  type SubmitBatchCommand,
  type SubmitBatchData,
  type SubmitBatchesCommand,
  type SubmitBatchesResult,
} from '@seed/sms-batch-contracts';
import { SealedTextRefused, SealedTexts } from '../sealed-texts';
import { toBatchResponse, type FirstMessageEvent } from './batch-response';
import { openSealedItems, sealQueuedTexts } from './sealed-items';

const CONSUMER = 'submit-batch';
const BATCH_SPAN_ATTRIBUTES = { 'messaging.system': 'kafka', 'messaging.operation': 'process' };
const MAX_CONFLICT_RETRIES = 3;

/**
 * Decides a batch: one transaction appends the batch event and one event per message, reserves the
 * clientBatchId and records the command as processed. Retries of the command, and new requests
 * with a known clientBatchId, get the first response rebuilt from the log. `SubmitBatches` decides
 * several batches that way in one transaction (verification's SMS, each a batch of one): one
 * command, transaction and reply for what a follower's pass sends, instead of one each.
 */
@Controller()
export class SubmitBatchHandler {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly processed: ProcessedMessages,
    private readonly subscriptions: SubscriptionRegistry,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly sealed: SealedTexts,
  ) {
    this.s = quoteSchema(schema.name);
  }

  @MessagePattern('SubmitBatch')
  async submit(@Payload() command: SubmitBatchCommand, @Ctx() context: CommandContext): Promise<CommandReply<BatchResponse>> {
    try {
      return { ok: true, result: await this.inTransaction((tx, appended) => this.decideAndAppend(tx, command, context, appended)) };
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return refused;
      throw error;
    }
  }

  @MessagePattern('SubmitBatches')
  async submitMany(@Payload() command: SubmitBatchesCommand): Promise<CommandReply<SubmitBatchesResult>> {
    const results = await this.inTransaction(async (tx, appended) => {
      const replies: CommandReply<BatchResponse>[] = [];
      for (const { batch: data, correlationId, traceparent } of command.data.batches) {
        if (data.clientBatchId === undefined) {
          replies.push({ ok: false, failure: { status: 400, code: ApiErrorCode.InvalidParameter, message: 'a batch of SubmitBatches needs a clientBatchId' } });
          continue;
        }
        try {
          // Each batch is handled in a span of its own request's trace (what a SubmitBatch of it
          // would have been), and its events carry that trace on, to its submission and webhooks.
          const response = await inSpan('SubmitBatch process', { kind: SpanKind.CONSUMER, parent: traceparent, attributes: BATCH_SPAN_ATTRIBUTES }, async () => {
            const itsContext: CommandContext = { correlationId, causationId: command.commandId, traceparent: onwardTraceparent(traceparent) };
            return (await this.decideBatch(tx, data, command.commandId, itsContext, appended)).response;
          });
          replies.push({ ok: true, result: response });
        } catch (error) {
          // Refusals come before anything of the batch is written: the others go on.
          const refused = refusalOf(error);
          if (!refused) throw error;
          replies.push(refused);
        }
      }
      return replies;
    });
    return { ok: true, result: { results } };
  }

  /**
   * Runs a decision in a transaction, again (up to 3 times) when a concurrent one took a stream or
   * clientBatchId it wanted, then wakes the followers of what it appended.
   */
  private async inTransaction<T>(decide: (tx: SqlExecutor, appended: string[]) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const appended: string[] = [];
        const result = await this.dataSource.transaction((tx) => decide(tx, appended));
        this.subscriptions.wakeFor(appended);
        return result;
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_CONFLICT_RETRIES) continue;
        throw error;
      }
    }
  }

  /** Decides the batch of a command once; the types of the events it appends go into `appended` (who to wake). */
  private async decideAndAppend(tx: SqlExecutor, command: SubmitBatchCommand, context: CommandContext, appended: string[]): Promise<BatchResponse> {
    const done = await this.processed.find<{ batchId: string }>(tx, CONSUMER, command.commandId);
    if (done) return this.rebuildResponse(tx, done.result.batchId, command.data.includeMessagesInResponse);
    const { batchId, response } = await this.decideBatch(tx, command.data, command.commandId, context, appended);
    await this.processed.record(tx, CONSUMER, command.commandId, { batchId });
    return response;
  }

  /**
   * Decides one batch: the first response again when its clientBatchId is known, else the batch
   * decided and appended. A refusal (BatchRejectedError, SealedTextRefused) is thrown before
   * anything is written.
   */
  private async decideBatch(
    tx: SqlExecutor,
    data: SubmitBatchData,
    causationId: string,
    context: CommandContext,
    appended: string[],
  ): Promise<{ batchId: string; response: BatchResponse }> {
    const include = data.includeMessagesInResponse;
    if (data.clientBatchId !== undefined) {
      const known = await this.findClientBatch(tx, data.subAccountId, data.clientBatchId);
      if (known) {
        this.logger.info({ batchId: known, clientBatchId: data.clientBatchId }, 'known clientBatchId: first response returned');
        return { batchId: known, response: await this.rebuildResponse(tx, known, include) };
      }
    }

    // Time-ordered ids: message streams, read-model rows and queue rows are then inserted at the
    // end of their indexes rather than all over them.
    const batchId = uuidv7();
    const umids = data.messages.map(() => uuidv7());
    const now = new Date().toISOString();
    const started = performance.now();
    const opened = openSealedItems(data, (sealed) => this.sealed.open(sealed));
    const decided = sealQueuedTexts(decideSubmitBatch({ data: opened, batchId, umids, now }, initialBatchState()), data);
    const decideMs = Math.round(performance.now() - started);

    if (data.clientBatchId !== undefined) await this.reserveClientBatch(tx, data.subAccountId, data.clientBatchId, batchId);
    await this.store.append(
      tx,
      [
        { streamId: batchStreamId(batchId), expectedVersion: 0, events: decided.batch },
        ...decided.messages.map((m) => ({ streamId: messageStreamId(m.umid), expectedVersion: 0, events: m.events })),
      ],
      { correlationId: context.correlationId, causationId, traceparent: context.traceparent, occurredAt: now },
    );
    appended.push(...new Set([...decided.batch, ...decided.messages.flatMap((m) => m.events)].map((e) => e.type)));
    const appendMs = Math.round(performance.now() - started) - decideMs;

    const batchEvent = decided.batch[0];
    if (!batchEvent) throw new Error('the batch decider returned no batch event');
    const first = decided.messages.map((m) => m.events[0] as FirstMessageEvent);
    this.logger.info(
      { batchId, accepted: batchEvent.data.acceptedCount, rejected: batchEvent.data.rejectedCount, decideMs, appendMs },
      'batch decided',
    );
    return { batchId, response: toBatchResponse(batchEvent.data, first, include) };
  }

  private async rebuildResponse(tx: SqlExecutor, batchId: string, include: boolean): Promise<BatchResponse> {
    const [batchEvent] = await this.store.readStream(tx, batchStreamId(batchId));
    if (!batchEvent) throw new Error(`batch ${batchId} is recorded as processed but has no events`);
    const batch = batchEvent.data as BatchSubmittedV1;
    if (!include) return toBatchResponse(batch, [], false);
    const streams = await this.store.readStreams(tx, batch.umids.map(messageStreamId));
    const first = batch.umids.map((umid) => {
      const [event] = streams.get(messageStreamId(umid)) ?? [];
      if (!event) throw new Error(`message ${umid} of batch ${batchId} has no events`);
      return event as unknown as FirstMessageEvent;
    });
    return toBatchResponse(batch, first, true);
  }

  private async findClientBatch(tx: SqlExecutor, subAccountId: string, clientBatchId: string): Promise<string | null> {
    const rows: { batch_id: string }[] = await tx.query(
      `SELECT batch_id FROM ${this.s}.client_batch_ids WHERE sub_account_id = $1 AND client_batch_id = $2`,
      [subAccountId, clientBatchId],
    );
    return rows[0]?.batch_id ?? null;
  }

  private async reserveClientBatch(tx: SqlExecutor, subAccountId: string, clientBatchId: string, batchId: string): Promise<void> {
    const rows = await tx.query(
      `INSERT INTO ${this.s}.client_batch_ids (sub_account_id, client_batch_id, batch_id) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING batch_id`,
      [subAccountId, clientBatchId, batchId],
    );
    // Another transaction took it between our read and this insert: decide again, and find it.
    if (rows.length === 0) throw new ConcurrencyError(`clientBatchId ${clientBatchId} was reserved concurrently`);
  }
}

/** The answer to a batch refused as a whole (nothing of it written), or null for any other error. */
function refusalOf(error: unknown): CommandReply<never> | null {
  if (error instanceof BatchRejectedError) return { ok: false, failure: { status: 400, code: error.code, message: error.message } };
  if (error instanceof SealedTextRefused) return { ok: false, failure: { status: 400, code: ApiErrorCode.InvalidText, message: error.message } };
  return null;
}
