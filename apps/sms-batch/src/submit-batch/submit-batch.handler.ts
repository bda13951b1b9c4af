import { v7 as uuidv7 } from 'uuid';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload, Ctx } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { CommandPipeline, commitDeadline, CommitDeadlinePassed, EventStore, PAST_DEADLINE_REPLY, ProcessedMessages, type AppendToStream, type Decision, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema } from '@seed/platform-nest';
import { inSpan, onwardTraceparent, SpanKind } from '@seed/platform-telemetry';
import { BatchRejectedError, decideSubmitBatch, initialBatchState } from '@seed/sms-batch-domain';
import {
  batchStreamId,
  messageStreamId,
  SMS_BATCH_SERVICE_COMMAND_TOPIC,
  type BatchResponse,
  type BatchSubmittedV1,
  type SubmitBatchCommand,
  type SubmitBatchData,
  type SubmitBatchesCommand,
  type SubmitBatchesResult,
  type SubmitBatchReply,
} from '@seed/sms-batch-contracts';
import { SealedTextRefused, SealedTexts } from '../sealed-texts';
import { toBatchResponse, type FirstMessageEvent } from './batch-response';
import { ClientBatchIds, clientBatchKey } from './client-batch-ids';
import { IdempotencyKeyReused, IdempotencyKeys, matchIdempotencyKey } from './idempotency-keys';
import { openSealedItems, sealQueuedTexts } from './sealed-items';

const CONSUMER = 'submit-batch';
const BATCH_SPAN_ATTRIBUTES = { 'messaging.system': 'kafka', 'messaging.operation': 'process' };

/** Provider token: SMS_BATCH_MAX_COMMAND_AGE_MS (the gateway's COMMAND_TIMEOUT_MS). */
export const MAX_COMMAND_AGE_MS = Symbol('SMS_BATCH_MAX_COMMAND_AGE_MS');

/** A batch decided, not yet written: what to append and what to answer. */
interface DecidedBatch {
  batchId: string;
  subAccountId: string;
  clientBatchId: string | undefined;
  /** The request's: its events carry them. */
  correlationId: string;
  traceparent: string | null;
  now: string;
  appends: AppendToStream[];
  response: BatchResponse;
}

/**
 * Decides a batch: one transaction appends the batch event and one event per message, reserves the
 * clientBatchId and records the command as processed. Retries of the command, and new requests
 * with a known clientBatchId, get the first response rebuilt from the log. `SubmitBatches` decides
 * several batches that way in one transaction (verification's SMS, each a batch of one): one
 * command, transaction and reply for what a follower's pass sends, instead of one each.
 */
@Controller()
export class SubmitBatchHandler {
  private readonly clientBatchIds: ClientBatchIds;
  private readonly idempotencyKeys: IdempotencyKeys;

  constructor(
    private readonly store: EventStore,
    private readonly processed: ProcessedMessages,
    private readonly pipeline: CommandPipeline,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly sealed: SealedTexts,
    @Inject(MAX_COMMAND_AGE_MS) private readonly maxCommandAgeMs: number,
  ) {
    this.clientBatchIds = new ClientBatchIds(schema.name);
    this.idempotencyKeys = new IdempotencyKeys(schema.name);
  }

  @MessagePattern('SubmitBatch')
  async submit(@Payload() command: SubmitBatchCommand, @Ctx() context: CommandContext): Promise<CommandReply<SubmitBatchReply>> {
    // The command's record keeps the batch id, not its answer (which may list every message), so
    // the handler keeps it itself: a redelivered command's answer is rebuilt from the log.
    const metadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: new Date().toISOString() };
    try {
      return { ok: true, result: await this.pipeline.run({ consumer: CONSUMER, commandId: null, metadata }, (tx) => this.decideOnce(tx, command, context)) };
    } catch (error) {
      if (error instanceof CommitDeadlinePassed) {
        this.logger.warn({ commandId: command.commandId, issuedAt: command.issuedAt }, 'batch request past the gateway deadline: not decided');
        return PAST_DEADLINE_REPLY;
      }
      const refused = refusalOf(error);
      if (refused) return refused;
      throw error;
    }
  }

  /**
   * No deadline here: SubmitBatches comes from the platform's own senders (verification's SMS
   * follower), not from a client waiting on HTTP. Their requests were answered 200 already (a code
   * was promised), each batch carries a clientBatchId that makes a repeat harmless, and the sender
   * retries until it gets an answer: refusing a late one would drop an SMS that was promised.
   */
  @MessagePattern('SubmitBatches')
  async submitMany(@Payload() command: SubmitBatchesCommand): Promise<CommandReply<SubmitBatchesResult>> {
    const first = command.data.batches[0];
    const metadata = { correlationId: first?.correlationId ?? command.commandId, causationId: command.commandId, traceparent: null, occurredAt: new Date().toISOString() };
    const results = await this.pipeline.run({ consumer: CONSUMER, commandId: null, metadata }, (tx) => this.decideMany(tx, command));
    return { ok: true, result: { results } };
  }

  /** Decides the batch of a command once: what to append, and the answer. */
  private async decideOnce(tx: SqlExecutor, command: SubmitBatchCommand, context: CommandContext): Promise<Decision<SubmitBatchReply>> {
    const { data } = command;
    // A command already decided (redelivered) gets its first answer, late or not: nothing is written.
    const done = await this.processed.find<{ batchId: string }>(tx, CONSUMER, command.commandId);
    if (done) return { appends: [], result: await this.rebuildResponse(tx, done.result.batchId, data.includeMessagesInResponse) };
    const now = new Date();
    if (data.idempotency) {
      const first = matchIdempotencyKey(await this.idempotencyKeys.find(tx, data.accountId, data.idempotency.key), data.idempotency, now);
      if (first) {
        this.logger.info({ batchId: first.batchId }, 'known Idempotency-Key: first response returned');
        return { appends: [], result: { ...(await this.rebuildResponse(tx, first.batchId, data.includeMessagesInResponse)), idempotentReplay: true } };
      }
    }
    // Past the gateway's deadline, the client has its 503 (or is about to): deciding now would
    // send what it was told failed, and its retry would send it again. A neighbouring service's
    // SubmitBatch has no such deadline: it is not a client's, its clientBatchId makes the sender's
    // retry get this answer, and refusing it late would drop an SMS that was promised.
    const deadline = fromNeighbour(context) ? undefined : commitDeadline(command.issuedAt, this.maxCommandAgeMs);
    if (deadline !== undefined && !(now.getTime() <= deadline)) throw new CommitDeadlinePassed(`command issued at ${command.issuedAt} is past the gateway's deadline: not decided`);
    const batch = await this.decideBatch(tx, data, context);
    if (data.idempotency) await this.idempotencyKeys.reserve(tx, data.accountId, data.idempotency.key, data.idempotency.requestHash, batch.batchId, now);
    await this.processed.record(tx, CONSUMER, command.commandId, { batchId: batch.batchId });
    // Deciding a large batch takes a while: the deadline is checked again just before the commit.
    return { appends: batch.appends, result: batch.response, occurredAt: batch.now, ...(deadline === undefined ? {} : { commitBy: deadline }) };
  }

  /**
   * Decides one batch: the first response again when its clientBatchId is known (nothing to
   * append), else the batch decided, its clientBatchId reserved. A refusal (BatchRejectedError,
   * SealedTextRefused) is thrown before anything is written.
   */
  private async decideBatch(
    tx: SqlExecutor,
    data: SubmitBatchData,
    context: CommandContext,
  ): Promise<{ batchId: string; response: BatchResponse; appends: AppendToStream[]; now?: string }> {
    const key = data.clientBatchId === undefined ? null : { subAccountId: data.subAccountId, clientBatchId: data.clientBatchId };
    if (key) {
      const known = (await this.clientBatchIds.find(tx, [key])).get(clientBatchKey(key));
      if (known) {
        this.logger.info({ batchId: known, clientBatchId: key.clientBatchId }, 'known clientBatchId: first response returned');
        return { batchId: known, response: await this.rebuildResponse(tx, known, data.includeMessagesInResponse), appends: [] };
      }
    }
    const batch = this.decideNew(data, context);
    if (key) await this.clientBatchIds.reserve(tx, [{ ...key, batchId: batch.batchId }]);
    return batch;
  }

  /**
   * The batches of a SubmitBatches, in four statements for any number of new ones: their known
   * clientBatchIds, their reservation, one append (each batch's events with its own request's
   * correlation and trace); known ones answered from the log. A batch refused is refused alone
   * (before anything of it is written); a clientBatchId given twice is answered with its first batch.
   */
  private async decideMany(tx: SqlExecutor, command: SubmitBatchesCommand): Promise<Decision<CommandReply<BatchResponse>[]>> {
    const items = command.data.batches;
    const keys = items.flatMap(({ batch }) => (batch.clientBatchId === undefined ? [] : [{ subAccountId: batch.subAccountId, clientBatchId: batch.clientBatchId }]));
    const known = await this.clientBatchIds.find(tx, keys);
    const replies = new Map<string, CommandReply<BatchResponse>>();
    const decided: DecidedBatch[] = [];
    const answers: (CommandReply<BatchResponse> | string)[] = [];
    for (const { batch: data, correlationId, traceparent } of items) {
      if (data.clientBatchId === undefined) {
        answers.push({ ok: false, failure: { status: 400, code: ApiErrorCode.InvalidParameter, message: 'a batch of SubmitBatches needs a clientBatchId' } });
        continue;
      }
      const key = clientBatchKey({ subAccountId: data.subAccountId, clientBatchId: data.clientBatchId });
      answers.push(key);
      if (replies.has(key)) continue;
      const knownId = known.get(key);
      if (knownId) {
        replies.set(key, { ok: true, result: await this.rebuildResponse(tx, knownId, data.includeMessagesInResponse) });
        continue;
      }
      // Each batch is decided in a span of its own request's trace (what a SubmitBatch of it would
      // have been), and its events carry that trace on, to its submission and webhooks.
      try {
        const batch = await inSpan('SubmitBatch process', { kind: SpanKind.CONSUMER, parent: traceparent, attributes: BATCH_SPAN_ATTRIBUTES }, async () =>
          this.decideNew(data, { correlationId, causationId: command.commandId, traceparent: onwardTraceparent(traceparent) }),
        );
        decided.push(batch);
        replies.set(key, { ok: true, result: batch.response });
      } catch (error) {
        const refused = refusalOf(error);
        if (!refused) throw error;
        replies.set(key, refused);
      }
    }
    await this.clientBatchIds.reserve(
      tx,
      decided.map((b) => ({ subAccountId: b.subAccountId, clientBatchId: b.clientBatchId as string, batchId: b.batchId })),
    );
    return {
      appends: decided.flatMap((b) => b.appends.map((a) => ({ ...a, correlationId: b.correlationId, traceparent: b.traceparent }))),
      result: answers.map((answer) => (typeof answer === 'string' ? (replies.get(answer) as CommandReply<BatchResponse>) : answer)),
      ...(decided[0] ? { occurredAt: decided[0].now } : {}),
    };
  }

  /** Decides a new batch (nothing written): its id, the streams to append and the response. */
  private decideNew(data: SubmitBatchData, context: CommandContext): DecidedBatch {
    // Time-ordered ids: message streams, read-model rows and queue rows are then inserted at the
    // end of their indexes rather than all over them.
    const batchId = uuidv7();
    const umids = data.messages.map(() => uuidv7());
    const now = new Date().toISOString();
    const started = performance.now();
    const opened = openSealedItems(data, (sealed) => this.sealed.open(sealed));
    const decided = sealQueuedTexts(decideSubmitBatch({ data: opened, batchId, umids, now }, initialBatchState()), data);
    const decideMs = Math.round(performance.now() - started);
    const batchEvent = decided.batch[0];
    if (!batchEvent) throw new Error('the batch decider returned no batch event');
    const first = decided.messages.map((m) => m.events[0] as FirstMessageEvent);
    this.logger.info({ batchId, accepted: batchEvent.data.acceptedCount, rejected: batchEvent.data.rejectedCount, decideMs }, 'batch decided');
    return {
      batchId,
      subAccountId: data.subAccountId,
      clientBatchId: data.clientBatchId,
      correlationId: context.correlationId,
      traceparent: context.traceparent,
      now,
      appends: [
        { streamId: batchStreamId(batchId), expectedVersion: 0, events: decided.batch },
        ...decided.messages.map((m) => ({ streamId: messageStreamId(m.umid), expectedVersion: 0, events: m.events })),
      ],
      response: toBatchResponse(batchEvent.data, first, data.includeMessagesInResponse),
    };
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
}

/** The answer to a batch refused as a whole (nothing of it written), or null for any other error. */
function refusalOf(error: unknown): CommandReply<never> | null {
  if (error instanceof BatchRejectedError) return { ok: false, failure: { status: 400, code: error.code, message: error.message } };
  if (error instanceof SealedTextRefused) return { ok: false, failure: { status: 400, code: ApiErrorCode.InvalidText, message: error.message } };
  if (error instanceof IdempotencyKeyReused) return { ok: false, failure: { status: 422, code: ApiErrorCode.InvalidParameter, message: error.message } };
  return null;
}

/** Whether a command came from a neighbouring service (sms-batch.service-commands.v1), not a client through the gateway. */
function fromNeighbour(context: CommandContext): boolean {
  return context.topic?.endsWith(SMS_BATCH_SERVICE_COMMAND_TOPIC) === true;
}
