import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { MessageHeader } from '@seed/contracts';
import { isPermanentDatabaseError } from '@seed/platform-event-store';
import { consumerDeadLetters, deadLetterTopic, IntervalOffsetCommitter, startConsumer, unprefixedTopic, type KafkaConnection, type MessageProducer } from '@seed/platform-kafka';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { STATUS_CHANGE_TYPES, type SourceEvent } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery } from '../sending/delivery-store';
import type { DirectDelivery } from '../sending/direct-delivery';
import type { SenderHandOver } from '../sending/sender-hand-over';
import type { DeliveryIntake } from './delivery-intake';

export const INTAKE_GROUP = 'webhook-dispatcher.sms-batch-events';
/** Records of sms-batch's topic that are not events, or whose handling fails for good (never expected): kept for an operator. */
export const INTAKE_DEAD_LETTERS = deadLetterTopic(`${SMS_BATCH_EVENT_TOPIC}.webhook-dispatcher`);
const CHUNK = 2000;
const HEARTBEAT_MS = 1000;

type RunConfig = NonNullable<Parameters<ReturnType<KafkaConnection['kafka']['consumer']>['run']>[0]>;
type BatchPayload = Parameters<NonNullable<RunConfig['eachBatch']>>[0];
type Message = BatchPayload['batch']['messages'][number];

/**
 * Follows sms-batch's public topic in batches: each chunk of records is handled in ONE transaction
 * (deliveries scheduled, events recorded as processed), and its offsets are committed only after
 * that transaction committed: once a second and on stop, not after every fetch (an OffsetCommit per
 * fetch was more than one broker write per event at a few events a fetch); what a crash redelivers
 * is recognised as processed. A failure is retried with backoff for as long as it lasts (the
 * partition waits; nothing is skipped); on shutdown the uncommitted records are left to the next
 * owner of the partition. A record that is not an event, or that fails with a data error, is
 * dead-lettered, never dropped.
 */
export class StatusEventConsumer {
  private consumer: ReturnType<KafkaConnection['kafka']['consumer']> | undefined;
  private stopping = false;
  private readonly committer: IntervalOffsetCommitter;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly producer: MessageProducer,
    private readonly dataSource: DataSource,
    private readonly intake: DeliveryIntake,
    private readonly logger: Logger,
    private readonly sink: SenderHandOver,
  ) {
    this.committer = new IntervalOffsetCommitter(logger, INTAKE_GROUP);
  }

  async start(): Promise<void> {
    const consumer = this.connection.kafka.consumer({
      groupId: this.connection.group(INTAKE_GROUP),
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
      // The broker answers a fetch as soon as a record arrives (minBytes 1): a long wait costs no
      // latency, and spares the broker and this process a dozen empty fetches a second when idle.
      maxWaitTimeInMs: 1000,
      allowAutoTopicCreation: false,
    });
    await startConsumer(consumer, this.committer, [this.connection.topic(SMS_BATCH_EVENT_TOPIC)], {
      autoCommit: false,
      eachBatchAutoResolve: false,
      // Three at once. A chunk's handling waits for its direct deliveries' answers, and a fetch's
      // next one for all its chunks, so records wait ~1 s in the consumer under load (bench:e2e's
      // changeToWebhookMs); but each partition's offer of direct deliveries is sized for the
      // endpoint on its own, and twelve at once queued more behind its slots than it answered
      // before the write-down deadline (18% written down against none, 1,066-1,339 messages/s end
      // to end against 1,441-1,675; sharing the room between the twelve wrote down 25%).
      partitionsConsumedConcurrently: 3,
      eachBatch: (payload) => this.committer.track(this.handleBatch(payload)),
    });
    this.consumer = consumer;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const consumer = this.consumer;
    this.consumer = undefined;
    if (!consumer) return;
    await this.committer.stop(consumer, [this.connection.topic(SMS_BATCH_EVENT_TOPIC)]);
    await consumer.disconnect();
  }

  private async handleBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: BatchPayload): Promise<void> {
    for (let i = 0; i < batch.messages.length; i += CHUNK) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(i, i + CHUNK);
      const events: { event: SourceEvent; message: Message }[] = [];
      for (const message of chunk) {
        // An event whose type (the relay's header) is no status change is passed over unread:
        // a third of sms-batch's events are MessageQueued, the largest of them.
        const type = message.headers?.[MessageHeader.MessageType]?.toString();
        if (type !== undefined && !STATUS_CHANGE_TYPES.has(type)) continue;
        const event = parseEvent(message.value);
        if (event) events.push({ event, message });
        else await this.deadLetter(batch.topic, message, 'not an event envelope');
      }
      const { scheduled, held, direct } = await this.withRetries(() => this.accept(batch.topic, events), heartbeat);
      if (scheduled > 0) this.sink.scheduled(held);
      // The chunk's offsets go only after its direct deliveries were sent or written down: until
      // then the events on the topic are their only record.
      // Heartbeats go on meanwhile: a write-down that waits for the database (restarting, say) must
      // not cost the group membership, or the partition's uncommitted events, delivered already,
      // would be handled (and posted) again after the rebalance.
      if (direct.length > 0 && this.sink.sendDirect) await whileBeating(this.sink.sendDirect(direct), heartbeat);
      const last = chunk[chunk.length - 1];
      if (last) {
        resolveOffset(last.offset);
        this.committer.handled(batch.topic, batch.partition, last.offset);
      }
      await heartbeat();
    }
  }

  /**
   * The chunk in one transaction. A failure no retry can cure (a data error) would stop the
   * partition for good: then each event is tried on its own, and the ones that still fail that way
   * are dead-lettered with the reason.
   */
  private async accept(topic: string, events: { event: SourceEvent; message: Message }[]): Promise<{ scheduled: number; held: ClaimedDelivery[]; direct: DirectDelivery[] }> {
    try {
      // A new offer and hand per attempt: a rolled-back attempt held nothing.
      const held: ClaimedDelivery[] = [];
      // What has somewhere to go is read first, outside a transaction: a chunk with nothing to
      // send (SMS without a callback URL, of accounts without a default one: an installation
      // without webhooks, or Verify's codes) costs one statement instead of three.
      const sourceEvents = events.map((e) => e.event);
      const read = await this.intake.targeted(this.dataSource, sourceEvents);
      if (read.targeted.length === 0) return { scheduled: 0, held, direct: [] };
      const directOffer = this.sink.sendDirect ? this.sink.directOffer?.() : undefined;
      const direct = directOffer ? { offer: directOffer, taken: [] as DirectDelivery[] } : undefined;
      const scheduled = await this.dataSource.transaction((tx) => this.intake.accept(tx, sourceEvents, new Date(), this.sink.offer(), held, direct, read));
      return { scheduled, held, direct: direct?.taken ?? [] };
    } catch (error) {
      if (!isPermanentDatabaseError(error)) throw error;
      let scheduled = 0;
      for (const { event, message } of events) {
        try {
          scheduled += await this.dataSource.transaction((tx) => this.intake.accept(tx, [event]));
        } catch (single) {
          if (!isPermanentDatabaseError(single)) throw single;
          await this.deadLetter(topic, message, `not handled: ${single instanceof Error ? single.message : String(single)}`.slice(0, 1000));
        }
      }
      return { scheduled, held: [], direct: [] };
    }
  }

  private async withRetries<T>(work: () => Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (this.stopping) throw error; // not committed: handled again by the next owner
        const delay = Math.min(100 * 2 ** (attempt - 1), 5000);
        this.logger.warn({ err: error, attempt, delay }, 'status events not handled; retrying');
        await new Promise((r) => setTimeout(r, delay));
        await heartbeat().catch(() => undefined);
      }
    }
  }

  private async deadLetter(topic: string, message: Message, reason: string): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = v.toString();
    await this.producer.sendRaw(this.connection.topic(INTAKE_DEAD_LETTERS.name), [
      {
        key: message.key?.toString() ?? '',
        value: message.value,
        headers: { ...headers, [MessageHeader.DeadLetterReason]: reason, [MessageHeader.DeadLetterSourceTopic]: topic },
      },
    ]);
    consumerDeadLetters.inc({ group: INTAKE_GROUP, topic: unprefixedTopic(topic, this.connection.settings.prefix) });
    this.logger.error({ topic, offset: message.offset, reason }, 'record of the status topic dead-lettered');
  }
}

/** Waits for `work`, sending the group a heartbeat every second meanwhile (kafkajs sends none on its own while a batch is handled). */
async function whileBeating<T>(work: Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

function parseEvent(value: Buffer | null): SourceEvent | null {
  try {
    const e = JSON.parse(value?.toString() ?? '') as Partial<SourceEvent>;
    if (typeof e.eventId !== 'string' || typeof e.type !== 'string' || typeof e.streamPosition !== 'number' || typeof e.occurredAt !== 'string') return null;
    if (typeof e.data !== 'object' || e.data === null) return null;
    return e as SourceEvent;
  } catch {
    return null;
  }
}
